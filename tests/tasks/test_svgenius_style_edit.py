"""SVGenius style editing: metrics on the release and the seeded edit generator."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import numpy as np
import pytest
from lxml import etree
from svgenius_support import released_items, run_task, sample_records

from svgeval.builders.skips import SkipLog
from svgeval.builders.svgenius.style_edit_generator import (
    build_style_edit_cases,
)
from svgeval.builders.svgenius.style_edit_rules import (
    apply_style_edit,
    most_complex_element,
)
from svgeval.metrics.editing import change_size
from svgeval.models.baselines import IdentityModel, OracleModel
from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.svg.demo_corpus import DEMO_ICONS, demo_svg
from svgeval.tasks.base import CommonOptions, Sample
from svgeval.tasks.outcome import Outcome
from svgeval.tasks.svgenius.style_edit import StyleEditTarget, SvgeniusStyleEdit

TIERS = ("easy", "medium", "hard")
ORIGINAL = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">'
    '<rect x="10" y="10" width="40" height="40" fill="#000000"/></svg>'
)
MODIFIED = ORIGINAL.replace("#000000", "#FF0000")
KINDS = {
    "Change fill color": "fill",
    "Add stroke": "stroke",
    "Move": "translate",
    "Rotate": "rotate",
    "Scale": "scale",
}


def _sample() -> Sample:
    target = StyleEditTarget(original=ORIGINAL, modified=MODIFIED, command="", name="x")
    return Sample("t/000", "t", [], f"Answer:{MODIFIED}", ORIGINAL, target=target)


def test_half_way_edit_scores_by_the_formula(renderer: Renderer) -> None:
    half = ORIGINAL.replace("#000000", "#800000")  # red channel 128/255 of the way
    score = SvgeniusStyleEdit(CommonOptions()).score(_sample(), f"Answer:{half}", renderer)
    ratio = ((255 - 128) / 255) ** 2  # MSE(gen, gt) / MSE(ori, gt): only red differs, same area
    assert score.valid
    assert score.metrics["rmse"] == pytest.approx(np.sqrt(1 - ratio) * 100, abs=0.5)
    assert score.metrics["acc"] == 100.0 and score.metrics["acc_strict"] == 100.0
    assert score.metrics["rld"] == change_size(ORIGINAL, half) - change_size(ORIGINAL, MODIFIED)


def test_failures_follow_both_protocols(renderer: Renderer) -> None:
    task = SvgeniusStyleEdit(CommonOptions())
    missing = task.score(_sample(), "I would change the colour.", renderer)
    assert not missing.valid and missing.failure.tag == "extract"
    assert (missing.metrics["acc"], missing.metrics["acc_all"]) == (None, 0.0)
    assert (missing.metrics["rmse"], missing.metrics["rmse_all"]) == (None, 0.0)
    broken = task.score(_sample(), "Answer:<svg><rect></svg>", renderer)
    assert not broken.valid and broken.failure.tag == "render:rejected:malformed_xml"
    assert broken.metrics["rld"] is not None and broken.metrics["rmse_all"] == 0.0


def test_an_edit_that_does_not_change_the_render_has_no_rmse(renderer: Renderer) -> None:
    invisible = ORIGINAL.replace("<rect", '<rect id="a"')
    target = StyleEditTarget(original=ORIGINAL, modified=invisible, command="", name="x")
    sample = Sample("t/000", "t", [], "", ORIGINAL, target=target)
    score = SvgeniusStyleEdit(CommonOptions()).score(sample, f"Answer:{invisible}", renderer)
    assert score.metrics["rmse"] is None and score.metrics["rmse_all"] is None
    assert score.metrics["n_rmse_undefined"] == 1.0 and score.metrics["acc"] == 100.0


@pytest.mark.e2e
@pytest.mark.shared_data
def test_oracle_and_identity_on_the_release(tmp_path: Path) -> None:
    oracle = run_task(SvgeniusStyleEdit, OracleModel(), tmp_path / "oracle")["metrics"]
    identity = run_task(SvgeniusStyleEdit, IdentityModel(), tmp_path / "identity")["metrics"]
    for tier in TIERS:
        assert (oracle[f"{tier}/rmse"], oracle[f"{tier}/rld"], oracle[f"{tier}/acc"]) == (
            100.0,
            0.0,
            100.0,
        )
        assert identity[f"{tier}/rmse"] == 0.0 and identity[f"{tier}/acc_strict"] == 0.0
        # The released accuracy (MSE(gen, gt) <= MSE(ori, gt)) is met by doing nothing.
        assert identity[f"{tier}/acc"] == 100.0
        assert oracle[f"{tier}/n_rmse_undefined"] == 0.0
        edits = [
            next(iter(item.values()))
            for item in released_items(f"editing/style_editing/{tier}_results.json")
        ]
        sizes = [change_size(edit["original"], edit["modified"]) for edit in edits]
        assert identity[f"{tier}/rld"] == pytest.approx(-sum(sizes) / len(sizes))
    assert all(record["failure"] is None for record in sample_records(tmp_path / "identity"))


def _kinds_and_target(command: str) -> tuple[list[str], str]:
    clauses = re.split(r", | and (?=[a-z]+ the (?:most|entire))", command)
    kinds = [
        next(kind for start, kind in KINDS.items() if clause.lower().startswith(start.lower()))
        for clause in clauses
    ]
    return kinds, "svg" if "entire" in command else "element"


@pytest.mark.shared_data
def test_generator_rules_reproduce_every_released_item() -> None:
    """For the colours and directions the release drew, our edit gives its answer byte for byte.

    The release measures lengths in its 1024-unit icons and turns about the origin, which
    ``geometry="release"`` does; the default pivots on the viewBox centre instead.
    """
    reproduced = 0
    for tier in TIERS:
        for item in released_items(f"editing/style_editing/{tier}_results.json"):
            edit = next(iter(item.values()))
            kinds, target = _kinds_and_target(edit["command"])
            for seed in range(400):
                made = apply_style_edit(
                    edit["original"], kinds, target, random.Random(seed), geometry="release"
                )
                if made is not None and made[0] == edit["command"]:
                    assert made[1] == edit["modified"], edit["command"]
                    reproduced += 1
                    break
    assert reproduced == 236


def test_most_complex_element_is_the_longest_path_first_on_ties() -> None:
    root = etree.fromstring(
        '<svg xmlns="http://www.w3.org/2000/svg"><defs><path id="hidden" d="M0 0h99999z"/>'
        '</defs><rect id="r"/><path id="a" d="M0 0h10z"/><path id="b" d="M0 0h10v10z"/>'
        '<path id="c" d="M0 0h10v20z"/></svg>'
    )
    chosen = most_complex_element(root)
    assert chosen is not None and chosen.get("id") == "b"
    shapes = etree.fromstring('<svg><circle id="c" r="1"/><rect id="r"/></svg>')
    first = most_complex_element(shapes)
    assert first is not None and first.get("id") == "c"


def test_gradient_edit_adds_a_definition(renderer: Renderer) -> None:
    made = apply_style_edit(ORIGINAL, ["gradient", "rotate"], "element", random.Random(0))
    assert made is not None
    command, modified = made
    assert command.startswith("Fill the most complex element with a linear gradient from ")
    assert re.search(r" and rotate the most complex element by (90|180) degrees$", command)
    root = etree.fromstring(modified.encode())
    namespace = "{http://www.w3.org/2000/svg}"
    assert root.find(f"{namespace}defs/{namespace}linearGradient") is not None
    rect = root.find(f"{namespace}rect")
    assert rect is not None and rect.get("fill") == "url(#svgeval-linearGradient-1)"


def test_generated_cases_are_reproducible_and_change_the_render(renderer: Renderer) -> None:
    svgs = {f"{name}.svg": demo_svg(name) for name in DEMO_ICONS}
    first = build_style_edit_cases(svgs, seed=7, renderer=renderer)
    assert json.dumps(first) == json.dumps(build_style_edit_cases(svgs, seed=7, renderer=renderer))
    assert json.dumps(first) != json.dumps(build_style_edit_cases(svgs, seed=8, renderer=renderer))
    assert len(first) == len(svgs)
    spec = RenderSpec.square(224)
    for case in first:
        ((name, edit),) = case.items()
        assert edit["original"] == svgs[name]
        assert re.match(r"(Change|Add|Move|Rotate|Scale|Apply|Fill|Set) ", edit["command"])
        before = renderer.render(edit["original"], spec).pixels  # type: ignore[union-attr]
        after = renderer.render(edit["modified"], spec).pixels  # type: ignore[union-attr]
        assert not np.array_equal(before, after)


def test_generator_respects_kinds_and_targets(renderer: Renderer) -> None:
    svgs = {f"{name}.svg": demo_svg(name) for name in list(DEMO_ICONS)[:6]}
    skipped = SkipLog()
    cases = build_style_edit_cases(
        svgs,
        kinds=["rotate"],
        targets=["svg"],
        edits_per_case=[1],
        renderer=renderer,
        skipped=skipped,
    )
    made = [next(iter(case)) for case in cases]
    assert len(made) >= 4
    assert sorted(made + [skip.source for skip in skipped.entries]) == sorted(svgs)
    for case in cases:
        edit = next(iter(case.values()))
        assert re.fullmatch(r"Rotate the entire svg by (90|180) degrees", edit["command"])
        # about the centre of the 36-unit viewBox
        assert re.search(r'<svg [^>]*transform="rotate\((90|180),18,18\)"', edit["modified"])
    with pytest.raises(ValueError, match="edit kinds"):
        build_style_edit_cases(svgs, kinds=["recolour"], renderer=renderer)


def test_a_reference_that_does_not_render_leaves_the_sample_out(renderer: Renderer) -> None:
    target = StyleEditTarget(original="<svg><rect></svg>", modified=MODIFIED, command="",
                             name="x")
    sample = Sample("t/001", "t", [], "", ORIGINAL, target=target)
    task = SvgeniusStyleEdit(CommonOptions())
    score = task.score(sample, f"Answer:{MODIFIED}", renderer)
    assert not score.valid and score.failure.tag == "reference:rejected:malformed_xml"
    good = task.score(_sample(), f"Answer:{MODIFIED}", renderer)
    records = [
        {"id": "t/000", "group": "t", "failure": None, "metrics": good.metrics},
        {"id": "t/001", "group": "t", "failure": {"kind": "reference"}, "metrics": score.metrics},
    ]
    metrics = task.aggregate([Outcome.model_validate(r) for r in records]).metrics
    assert metrics["t/acc_all"] == 100.0 and metrics["t/rmse_all"] == 100.0

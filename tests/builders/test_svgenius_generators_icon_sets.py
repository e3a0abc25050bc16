"""SVGenius generators on icon sets unlike the release: 24-unit outline icons, a logo, an emoji.

The checks score generated cases with the tasks' own scorers and renders, against values
worked out by hand (viewBox arithmetic) or measured independently in the test.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
import svgo
from support.generator_corpus import CORPUS, OUTLINE_ICONS, write_corpus
from typer.testing import CliRunner

from svgeval.builders import render_checks
from svgeval.builders.svg_files import write_cases
from svgeval.builders.svgenius.optimize_generator import (
    MAX_TARGET_MSE,
    build_optimize_cases,
    svgo_config,
)
from svgeval.builders.svgenius.style_edit_generator import (
    BLANK_CLOSER,
    IDLE_CLAUSE,
    build_style_edit_cases,
    edit_problem,
)
from svgeval.builders.svgenius.style_edit_rules import (
    Clause,
    apply_style_edit,
    edited_svg,
    frame_for,
)
from svgeval.cli import app
from svgeval.metrics.pixel import mse
from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.render.picture import FloatImage
from svgeval.tasks.base import CommonOptions
from svgeval.tasks.svgenius.optimize import SvgeniusOptimize
from svgeval.tasks.svgenius.style_edit import SvgeniusStyleEdit

cli = CliRunner()
SPEC = RenderSpec.square(224)
EMPTY = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"></svg>'
KINDS_OF_ICON = {
    "outline": {f"{name}.svg" for name in OUTLINE_ICONS},
    "logo": {"droplet-logo.svg"},
    "emoji": {"1f60a.svg"},
}


def _image(svg: str, renderer: Renderer) -> Any:
    image: FloatImage = renderer.render(svg, SPEC).floats  # type: ignore[union-attr]
    return image


def test_lengths_and_pivots_follow_the_viewbox() -> None:
    """40 released units on a 1024-unit icon are 40 * 24 / 1024 = 0.9375 -> 0.94 on 24 units."""
    small, emoji = frame_for(CORPUS["check.svg"]), frame_for(CORPUS["1f60a.svg"])
    assert small is not None and emoji is not None
    assert (small.length(40), small.length(8), small.length(16)) == ("0.94", "0.19", "0.38")
    assert (emoji.length(40), emoji.centre) == ("1.4", (18.0, 18.0))  # 40 * 36 / 1024 = 1.40625
    turned = apply_style_edit(CORPUS["house.svg"], ["rotate"], "svg", random.Random(1))
    scaled = apply_style_edit(CORPUS["house.svg"], ["scale"], "svg", random.Random(1))
    assert turned is not None and scaled is not None
    assert 'transform="rotate(90,12,12)"' in turned[1] or 'rotate(180,12,12)"' in turned[1]
    assert "translate(12,12) scale(" in scaled[1] and ") translate(-12,-12)" in scaled[1]


def test_a_half_turn_of_the_whole_svg_is_the_picture_turned(renderer: Renderer) -> None:
    for seed in range(10):
        made = apply_style_edit(CORPUS["house.svg"], ["rotate"], "svg", random.Random(seed))
        if made is not None and made[0].endswith("180 degrees"):
            break
    else:
        pytest.fail("ten seeds should draw a half turn")
    before, after = _image(CORPUS["house.svg"], renderer), _image(made[1], renderer)
    assert np.abs(np.rot90(before, 2) - after).mean() < 2e-3  # anti-aliasing only


def test_the_released_geometry_would_empty_a_small_icon(renderer: Renderer) -> None:
    made = apply_style_edit(
        CORPUS["check.svg"], ["rotate"], "svg", random.Random(0), geometry="release"
    )
    assert made is not None
    assert np.all(_image(made[1], renderer) == 1.0)  # about (0, 0): off the canvas


def test_edits_a_blank_canvas_would_win_are_refused(renderer: Renderer) -> None:
    svg = CORPUS["check.svg"]
    original = _image(svg, renderer)
    turn = [Clause("Rotate", transform="rotate(90,12,12)")]
    truth = _image(edited_svg(svg, "svg", turn), renderer)
    # measured here: a white canvas is closer to the turned check than the check itself
    assert mse(np.ones_like(truth), truth) < mse(original, truth)
    assert edit_problem(svg, "svg", turn, original, renderer) == BLANK_CLOSER


def test_a_clause_that_changes_nothing_is_refused(renderer: Renderer) -> None:
    svg = CORPUS["1f60a.svg"]  # the most complex element (the mouth) has no stroke
    clauses = [Clause("Fill", (("fill", "#FF0000"),)), Clause("Width", (("stroke-width", "3"),))]
    problem = edit_problem(svg, "element", clauses, _image(svg, renderer), renderer)
    assert problem == IDLE_CLAUSE
    assert edit_problem(svg, "element", clauses[:1], _image(svg, renderer), renderer) == ""


@pytest.mark.parametrize("edits", [1, 2, 3])
def test_empty_and_unchanged_answers_score_low_on_every_tier(
    edits: int, tmp_path: Path, renderer: Renderer
) -> None:
    cases = build_style_edit_cases(CORPUS, edits_per_case=(edits,), renderer=renderer)
    made = {next(iter(case)) for case in cases}
    if edits == 1:  # every kind of icon gets single edits
        assert all(made & names for names in KINDS_OF_ICON.values())
    assert len(made) >= 4
    write_cases(cases, tmp_path / "edits.json")
    task = SvgeniusStyleEdit(CommonOptions(extra={"file": str(tmp_path / "edits.json")}))
    samples = task.load()
    assert len(samples) == len(cases)
    scores: dict[str, list[float]] = {"empty": [], "identity": [], "oracle": []}
    for sample in samples:
        truth = _image(sample.target.modified, renderer)
        ink = np.max(np.abs(truth - 1.0), axis=-1) > 0.1
        assert ink.mean() > 0.01, sample.target.name  # no blank target
        answers = {"empty": EMPTY, "identity": sample.input_svg, "oracle": sample.reference}
        for label, answer in answers.items():
            rmse = task.score(sample, f"Answer: {answer}", renderer).metrics["rmse"]
            assert rmse is not None
            scores[label].append(rmse)
    assert np.mean(scores["empty"]) < 10 and max(scores["empty"]) == 0.0
    assert max(scores["identity"]) == 0.0 and min(scores["oracle"]) == 100.0


def test_optimize_targets_render_like_their_originals(tmp_path: Path, renderer: Renderer) -> None:
    cases = build_optimize_cases(CORPUS, renderer=renderer)
    assert [case["svg_path"] for case in cases] == list(CORPUS)
    for case in cases:
        original = _image(case["origin_svg"], renderer)
        assert mse(original, _image(case["opti_svg"], renderer)) <= MAX_TARGET_MSE
        # 1 + round(log10(1024 / 24)) = 3 decimals; 1 + round(log10(1024 / 36)) = 2
        assert case["float_precision"] == (2 if case["svg_path"] == "1f60a.svg" else 3)
    # the released single decimal moves the logo and the bell visibly
    for name in ("droplet-logo.svg", "bell.svg"):
        released = svgo.optimize(CORPUS[name], svgo_config(1))["data"]
        assert mse(_image(CORPUS[name], renderer), _image(released, renderer)) > 1e-3
    write_cases(cases, tmp_path / "opt.json")
    task = SvgeniusOptimize(CommonOptions(extra={"file": str(tmp_path / "opt.json")}))
    for sample in task.load():
        assert task.score(sample, sample.reference, renderer).metrics["mse"] <= MAX_TARGET_MSE


class _RecordingRenderer(Renderer):
    """A render pool that notes the time limit of every pool made."""

    timeouts: ClassVar[list[float]] = []

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.timeouts.append(self.timeout_s)


@pytest.mark.parametrize(
    ("command", "task", "metric", "bounds"),
    [
        ("build-bugfix", "svgenius-bugfix", "custom/acc", (100.0, 100.0)),
        ("build-style-edit", "svgenius-style-edit", "custom/rmse", (100.0, 100.0)),
        ("build-optimize", "svgenius-optimize", "custom/mse", (0.0, MAX_TARGET_MSE)),
    ],
)
def test_build_commands_use_the_short_limit_and_their_files_run(
    command: str,
    task: str,
    metric: str,
    bounds: tuple[float, float],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each build command renders with the generators' limit; oracle runs of its file score."""
    monkeypatch.setattr(render_checks, "Renderer", _RecordingRenderer)
    monkeypatch.setattr(_RecordingRenderer, "timeouts", [])
    icons, out = write_corpus(tmp_path / "icons"), tmp_path / "cases.json"
    built = cli.invoke(app, ["svgenius", command, str(icons), "--out", str(out)])
    assert built.exit_code == 0, built.output
    assert _RecordingRenderer.timeouts == [render_checks.GENERATOR_TIMEOUT_S]
    count = len(json.loads(out.read_text(encoding="utf-8")))
    skipped = [line for line in built.output.splitlines() if line.startswith("skipped ")]
    assert count + sum(int(line.split()[1]) for line in skipped) == len(CORPUS)
    run = tmp_path / "run"
    args = ["run", task, "--set", f"file={out}", "--model", "oracle", "--out", str(run)]
    outcome = cli.invoke(app, args)
    assert outcome.exit_code == 0, outcome.output
    results = json.loads((run / "results.json").read_text())
    assert results["complete"] and results["n"] == results["n_valid"] == count
    assert bounds[0] <= results["metrics"][metric] <= bounds[1]

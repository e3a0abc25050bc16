"""SVGenius code optimization: CCR and MSE on the release, failure protocols, SVGO ground truth."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from svgenius_support import released_items, run_task

from svgeval.builders.svg_files import write_cases
from svgeval.builders.svgenius.optimize_generator import build_optimize_cases
from svgeval.metrics.pixel import mse
from svgeval.models.baselines import IdentityModel, OracleModel
from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.svg.demo_corpus import DEMO_ICONS, demo_svg
from svgeval.tasks.base import CommonOptions, Sample
from svgeval.tasks.svgenius.optimize import OptimizeTarget, SvgeniusOptimize

ORIGINAL = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100" viewBox="0 0 100 100">'
    '<!-- editor metadata --><g><rect x="10.000" y="10.000" width="80.000" height="80.000" '
    'fill="#ff0000"/></g></svg>'
)
FILES = {
    tier: f"editing/code_optimization/{tier}_svg_optimization_results.json"
    for tier in ("easy", "medium", "hard")
}


def _sample() -> Sample:
    return Sample("t/000", "t", [], "", ORIGINAL, target=OptimizeTarget(origin_svg=ORIGINAL, opti_ratio=None))


def test_scores_compression_and_render_error(renderer: Renderer) -> None:
    smaller = ORIGINAL.replace("<!-- editor metadata -->", "").replace(".000", "")
    score = SvgeniusOptimize(CommonOptions()).score(_sample(), f"Answer: {smaller}", renderer)
    expected = (1 - len(smaller) / len(ORIGINAL)) * 100
    assert score.valid
    assert score.metrics["ccr"] == pytest.approx(expected)
    assert score.metrics["ccr_all"] == pytest.approx(expected)
    assert score.metrics["mse"] == 0.0


def test_failures_follow_both_protocols(renderer: Renderer) -> None:
    task = SvgeniusOptimize(CommonOptions())
    missing = task.score(_sample(), "Sorry, I cannot.", renderer)
    assert not missing.valid and missing.failure.tag == "extract"
    assert missing.metrics == {"ccr": None, "ccr_all": 0.0, "mse": None}
    unclosed = '<svg><rect width="1"></svg>'
    broken = task.score(_sample(), f"Answer: {unclosed}", renderer)
    assert not broken.valid and broken.failure.tag == "render:rejected:malformed_xml"
    # The paper keeps the compression of an unrenderable answer; ours counts it as none.
    assert broken.metrics["ccr"] == pytest.approx((1 - len(unclosed) / len(ORIGINAL)) * 100)
    assert broken.metrics["ccr_all"] == 0.0 and broken.metrics["mse"] is None


@pytest.mark.e2e
@pytest.mark.shared_data
def test_oracle_reproduces_the_released_compression(tmp_path: Path) -> None:
    metrics = run_task(SvgeniusOptimize, OracleModel(), tmp_path / "run")["metrics"]
    for tier, relative in FILES.items():
        ratios = [item["opti_ratio"] for item in released_items(relative)]
        assert metrics[f"{tier}/ccr"] == pytest.approx(sum(ratios) / len(ratios), abs=1e-9)
        assert metrics[f"{tier}/ccr_all"] == metrics[f"{tier}/ccr"]
        assert 0 < metrics[f"{tier}/mse"] < 1e-3  # the released ground truth rounds paths


@pytest.mark.e2e
@pytest.mark.shared_data
def test_identity_compresses_nothing(tmp_path: Path) -> None:
    metrics = run_task(SvgeniusOptimize, IdentityModel(), tmp_path / "run", tier="hard")["metrics"]
    assert metrics == {"hard/ccr": 0.0, "hard/ccr_all": 0.0, "hard/mse": 0.0}


def test_svgo_cases_keep_the_look_and_record_their_ratio(renderer: Renderer) -> None:
    svgs = {f"{name}.svg": demo_svg(name) for name in DEMO_ICONS}
    svgs["bloated.svg"] = ORIGINAL
    cases = build_optimize_cases(svgs)
    assert [case["svg_path"] for case in cases] == list(svgs)
    spec = RenderSpec.square(224)
    for case in cases:
        size_before, size_after = len(case["origin_svg"]), len(case["opti_svg"])
        assert case["opti_ratio"] == pytest.approx((1 - size_after / size_before) * 100)
        assert case["optimizer"].startswith("svgo-py ")
        assert " width=" not in case["opti_svg"].split(">")[0]  # removeDimensions
        before = renderer.render(case["origin_svg"], spec).floats  # type: ignore[union-attr]
        after = renderer.render(case["opti_svg"], spec).floats  # type: ignore[union-attr]
        assert mse(before, after) < 1e-3
    bloated = cases[-1]["opti_svg"]
    assert "editor metadata" not in bloated and "<g>" not in bloated
    assert cases[-1]["opti_ratio"] > 30


def test_svgo_cases_are_deterministic_and_loadable(tmp_path: Path, renderer: Renderer) -> None:
    svgs = {"bloated.svg": ORIGINAL, "sun.svg": demo_svg("sun")}
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    write_cases(build_optimize_cases(svgs), first)
    write_cases(build_optimize_cases(svgs), second)
    assert first.read_bytes() == second.read_bytes()
    options = CommonOptions(tier="easy", extra={"file": str(first)})
    samples = SvgeniusOptimize(options).load()
    assert [s.group for s in samples] == ["easy", "easy"]
    items = json.loads(first.read_text(encoding="utf-8"))
    score = SvgeniusOptimize(options).score(samples[0], samples[0].reference, renderer)
    assert score.metrics["ccr"] == pytest.approx(items[0]["opti_ratio"])

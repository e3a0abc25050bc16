"""Generation statistics (SVGauge Table 1) in the generation tasks, and SVGauge as a batched
metric of text-to-SVG with the tiny models."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support.tiny_svgauge_models import tiny_captioner_dir, tiny_projection, tiny_siglip_dir

from svgeval.metrics.generation_stats import generation_stats
from svgeval.metrics.registry import MetricUnavailable
from svgeval.render.isolated import Renderer
from svgeval.tasks.aggregate import mean_per_group
from svgeval.tasks.base import BatchItem, CommonOptions, MetricContext, Sample
from svgeval.tasks.outcome import Outcome
from svgeval.tasks.svgenius import text2svg
from svgeval.tasks.svgenius.generation_task import CaptionTarget
from svgeval.tasks.svgenius.text2svg import SvgeniusText2Svg

__all__ = ["tiny_captioner_dir", "tiny_projection", "tiny_siglip_dir"]
SQUARE = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">'
          '<path d="M1 1H9V9H1Z" fill="#d02020"/></svg>')
WHITE = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><path d="M1 1H9V9H1Z" ' \
        'fill="white"/></svg>'


def sample(i: int) -> Sample:
    return Sample(f"easy/{i}", "easy", [], f"Answer: {SQUARE}",
                  target=CaptionTarget(caption="a red square", answer=SQUARE))


def test_statistics_of_one_answer() -> None:
    assert generation_stats(False, None) == {"has_svg": 0.0, "valid_svg": None,
                                             "blank_render": None}
    assert generation_stats(True, None) == {"has_svg": 100.0, "valid_svg": 0.0,
                                            "blank_render": None}
    assert generation_stats(True, np.ones((4, 4, 3)))["blank_render"] == 100.0
    assert generation_stats(True, np.zeros((4, 4, 3)))["blank_render"] == 0.0


def test_text2svg_reports_table_1_shares(renderer: Renderer) -> None:
    task = SvgeniusText2Svg(CommonOptions())
    answers = [f"Answer: {SQUARE}", f"Answer: {WHITE}", "no svg here",
               'Answer: <svg xmlns="http://www.w3.org/2000/svg"><rect></svg>']
    records = []
    for i, answer in enumerate(answers):
        score = task.score(sample(i), answer, renderer)
        records.append({"id": f"easy/{i}", "group": "easy", "metrics": score.metrics,
                        "failure": score.failure and score.failure.model_dump()})
    means = mean_per_group([Outcome.model_validate(r) for r in records]).metrics
    assert means["easy/has_svg"] == 75.0
    assert means["easy/valid_svg"] == pytest.approx(200 / 3)
    assert means["easy/blank_render"] == 50.0
    assert SvgeniusText2Svg.higher_is_better("blank_render") is False


@pytest.fixture()
def no_other_models(monkeypatch: pytest.MonkeyPatch) -> None:
    """CLIP, the aesthetic predictor and HPS are not available (and never looked for)."""
    def unavailable(*args: object, **kwargs: object) -> list[float]:
        raise MetricUnavailable("not in this test")

    for name in ("clip_score", "aesthetic", "hps"):
        monkeypatch.setattr(text2svg, name, unavailable)


def test_text2svg_computes_svgauge_with_a_projection(
    renderer: Renderer, tiny_siglip_dir: Path, tiny_captioner_dir: Path, tiny_projection: Path,
    monkeypatch: pytest.MonkeyPatch, no_other_models: None,
) -> None:
    monkeypatch.setenv("SVGEVAL_SVGAUGE_MODEL", str(tiny_siglip_dir))
    monkeypatch.setenv("SVGEVAL_SVGAUGE_PROJECTION_MODEL", str(tiny_projection))
    monkeypatch.setenv("SVGEVAL_SVGAUGE_CAPTIONER_MODEL", str(tiny_captioner_dir))
    task = SvgeniusText2Svg(CommonOptions())
    items = [BatchItem(sample(i), SQUARE, True) for i in range(2)]
    scores = task.batch_score(items, MetricContext(renderer, 8, "cpu"))
    for score in scores:
        assert score.metrics["svgauge_si"] == pytest.approx(1.0)
        st = score.metrics["svgauge_st"]
        assert st is not None and score.metrics["svgauge"] == pytest.approx(0.6 + 0.4 * st)
        assert "clip" in score.not_computed and "svgauge" not in score.not_computed


def test_text2svg_without_a_projection_says_how_to_fit_one(
    renderer: Renderer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_other_models: None,
) -> None:
    monkeypatch.setenv("SVGEVAL_SVGAUGE_PROJECTION_MODEL", str(tmp_path / "none.npz"))
    task = SvgeniusText2Svg(CommonOptions())
    scores = task.batch_score([BatchItem(sample(0), SQUARE, True)], MetricContext(renderer))
    assert scores[0].metrics["svgauge"] is None
    assert "svgeval svgauge fit" in scores[0].not_computed["svgauge"]

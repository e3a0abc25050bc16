"""UniSVG: ``svgeval run`` with the oracle and a wrong baseline on a TSV in VLMEvalKit's schema
(tiny CLIP, BERTScore encoder and LPIPS-AlexNet, the real all-MiniLM-L6-v2), the released
rules and weighted scores by hand, and failed rows scored rather than crashing."""

from __future__ import annotations

import base64
import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from support.vectorgym_data import BLUE, RED, png
from typer.testing import CliRunner

from svgeval.builders.unisvg import builtin
from svgeval.builders.unisvg.builtin import tsv_row, write_tsv
from svgeval.cli import app
from svgeval.models.baselines import HOSTILE_SVGS
from svgeval.render.isolated import Renderer
from svgeval.tasks.base import CommonOptions, Sample
from svgeval.tasks.unisvg import rules
from svgeval.tasks.unisvg.tasks import (
    FAILED,
    GENERATION,
    RULES,
    UNDERSTANDING,
    QuestionTarget,
    UniSvgAll,
    UniSvgImg2Svg,
)

cli = CliRunner()
IMAGE = base64.b64encode(png(200)).decode()


ROWS = [
    tsv_row(0, "ISVGEN", "Write the SVG code of this image.", RED, image=IMAGE),
    tsv_row(1, "TSVGEN", "Write SVG code of a blue circle.", BLUE),
    tsv_row(2, "CSVGUN_color", f"Which colours does this SVG use? {RED}", "It is red.",
            {"keywords": {"colors": {"colors": ["Red", "white"]}}}),
    tsv_row(3, "ISVGUN_category", "What category is this icon?", "A shape.",
            {"keywords": {"category": ["geometry"]}}, IMAGE),
    tsv_row(4, "CSVGUN_shape", "Which shapes?", "It has 1 rect and 2 circles."),
    tsv_row(5, "CSVGUN_size", "Its size?", "The width is 64 and the height is 48."),
    tsv_row(6, "CSVGUN_transform", "Transforms?", "translate then rotate"),
    tsv_row(7, "CSVGUN_usage", "What is it for?", "a red square icon"),
    tsv_row(8, "ISVGUN_description", "Describe it.", "a blue circle", image="3"),  # row 3's
]


@pytest.fixture()
def tiny_weights(monkeypatch: pytest.MonkeyPatch, tiny_clip_dir: Path,
                 tiny_text_encoder_dir: Path, tiny_lpips_dir: Path) -> None:
    pytest.importorskip("torch")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("SVGEVAL_CLIP_MODEL", str(tiny_clip_dir))
    monkeypatch.setenv("SVGEVAL_BERTSCORE_MODEL", str(tiny_text_encoder_dir))
    monkeypatch.setenv("SVGEVAL_LPIPS_MODEL", str(tiny_lpips_dir))


def run(model: str, data: Path, out: Path, *extra: str) -> dict[str, Any]:
    args = ["run", "unisvg", "--data", str(data), "--model", model, "--out", str(out),
            "--render-workers", "2", *extra]
    outcome = cli.invoke(app, args)
    assert outcome.exit_code == 0, outcome.output
    metrics: dict[str, Any] = json.loads((out / "results.json").read_text())["metrics"]
    return metrics


def test_oracle_is_perfect_and_identity_scores_lower(tmp_path: Path, tiny_weights: None) -> None:
    data = write_tsv(tmp_path / "UniSVG.tsv", ROWS)
    best = run("oracle", data, tmp_path / "oracle")
    for kind in ("ISVGEN", "TSVGEN"):
        assert best[f"{kind}/ssim"] == pytest.approx(1.0)
        assert best[f"{kind}/lpips"] == pytest.approx(0.0, abs=1e-6)
        assert best[f"{kind}/clip"] == pytest.approx(1.0, abs=1e-5)
        assert best[f"{kind}/psnr"] == best[f"{kind}/psnr_fixed"] == 100.0
        assert best[f"{kind}/score"] == pytest.approx(1.0, abs=1e-5)
    for kind in ("CSVGUN_color", "ISVGUN_category", "CSVGUN_shape", "CSVGUN_size",
                 "CSVGUN_transform"):
        assert best[f"{kind}/accuracy"] == 1.0
    for kind in ("CSVGUN_usage", "ISVGUN_description"):
        assert best[f"{kind}/bertscore"] == pytest.approx(1.0, abs=1e-5)
        assert best[f"{kind}/sbert"] == pytest.approx(1.0, abs=1e-5)
    assert best["overall/final_score"] == pytest.approx(1.0, abs=1e-5)
    # identity has no input SVG to give: every answer is empty
    worse = run("identity", data, tmp_path / "wrong")
    assert worse["ISVGEN/ssim"] < 1.0 and worse["ISVGEN/lpips"] > 0.01
    assert worse["CSVGUN_color/accuracy"] == 0.0 and worse["CSVGUN_usage/bertscore"] == 0.0
    assert worse["overall/final_score"] < best["overall/final_score"]


def test_final_score_by_hand() -> None:
    means: dict[str, dict[str, float | None]] = {
        "ISVGEN": {"ssim": 0.5, "lpips": 0.25, "clip": 0.75},
        "CSVGUN_size": {"accuracy": 0.5}, "CSVGUN_shape": {"accuracy": 1.0},
        "CSVGUN_color": {"accuracy": 0.25},
        "CSVGUN_usage": {"bertscore": 0.4, "sbert": 0.8},
        "CSVGUN_rect": {"bertscore": 0.1, "sbert": 0.2},
    }
    parts = rules.final_score(means)
    isvgen = 0.2 * 0.5 + 0.2 * 0.75 + 0.6 * 0.75  # 0.7
    assert parts["isvgen_score"] == pytest.approx(isvgen)
    assert parts["tsvgen_score"] == 0.0  # absent type, as released
    assert parts["easy_acc"] == pytest.approx(0.75) and parts["hard_acc"] == pytest.approx(0.25)
    bert, sb = (200 * 0.4 + 100 * 0.1) / 300, (200 * 0.8 + 100 * 0.2) / 300
    assert parts["bertscore"] == pytest.approx(bert) and parts["sbert_score"] == pytest.approx(sb)
    expected = 0.45 * isvgen + 0.01 * 0.75 + 0.02 * 0.25 + 0.035 * bert + 0.035 * sb
    assert parts["final_score"] == pytest.approx(expected)
    means["ISVGEN"]["clip"] = None  # a metric that could not run gives no final score
    assert rules.final_score(means)["final_score"] is None


def sample(category: str, answer: str,
           metadata: dict[str, Any] | None = None) -> Sample[QuestionTarget]:
    return Sample("0", category, [], answer,
                  target=QuestionTarget(category=category, answer=answer, metadata=metadata or {}))


def test_failed_generation_rows_are_scored(renderer: Renderer) -> None:
    task = UniSvgImg2Svg(CommonOptions())
    broken = task.score(sample("ISVGEN", RED), '<svg xmlns="http://www.w3.org/2000/svg"><rect>'
                        '</svg>', renderer)
    assert broken.failure is not None and broken.failure.kind.value == "render"
    assert broken.metrics == dict(FAILED)
    blank = task.score(sample("ISVGEN", RED), "no code, sorry", renderer)
    assert blank.failure is not None and blank.failure.tag == "extract"
    assert 0.0 < blank.metrics["ssim"] < 1.0  # the released white canvas, not the failure value
    worst = UniSvgImg2Svg(CommonOptions(extra={"no_svg": "worst"}))
    assert worst.score(sample("ISVGEN", RED), "no code", renderer).metrics == dict(FAILED)
    truncated = task.score(sample("ISVGEN", RED), RED[:-10], renderer)  # repaired by fix_svg
    assert truncated.valid and truncated.extracted is not None


def test_understanding_rules_by_hand(renderer: Renderer) -> None:
    task = UniSvgAll(CommonOptions())
    colour = sample("CSVGUN_color", "", {"colors": {"colors": ["red", "blue", "White"]}})
    assert task.score(colour, "Red and green", renderer).metrics["accuracy"] == 0.5
    assert rules.category_score("An Animal icon", {"category": ["animal"]}) == 1.0
    assert rules.category_score("xyz", {"category": "cat"}) == 0.0
    assert rules.category_score("a bird", {"category": "cat"}) == 1.0  # chars of a string: "a"
    assert rules.shape_score("2 rects and 1 circle", "2 rect, 3 circles") == 0.5
    assert rules.size_score("64 x 48", "width 64, height 50") == 0.5
    assert rules.transform_score("rotate", "rotate and translate and rotate") == pytest.approx(
        1 / 3)
    assert task.score(sample("CSVGUN_usage", "x"), "", renderer).metrics == {
        "bertscore": 0.0, "sbert": 0.0}


def test_released_extraction_and_repair() -> None:
    assert rules.extract_answer_svg(f"text {RED} {BLUE}").svg == RED
    repaired = rules.fix_svg('<svg><g><rect width="2"/><path d="M0')
    assert repaired == '<svg><g><rect width="2"/></g></svg>'
    assert rules.extract_answer_svg("none").svg is None


def test_released_psnr_wraps_around_in_uint8() -> None:
    a, b = np.zeros((2, 2, 3)), np.full((2, 2, 3), 16 / 255)
    # uint8: 0 - 16 = 240, 240^2 = 57600 = 0 (mod 256): the released MSE is 0 -> 100 dB
    assert rules.released_psnr(a, b) == 100.0
    assert rules.released_psnr(b, a) == 100.0  # 16^2 = 256 = 0 (mod 256)
    c = np.full((2, 2, 3), 3 / 255)
    assert rules.released_psnr(c, a) == pytest.approx(10 * np.log10(255**2 / 9))


def test_unknown_types_and_missing_images_are_one_line(tmp_path: Path) -> None:
    bad = write_tsv(tmp_path / "a.tsv", [tsv_row(0, "NEWTYPE", "q", "a")])
    with pytest.raises(Exception, match="unknown type\\(s\\) NEWTYPE"):
        UniSvgAll(CommonOptions(data=bad)).load()
    no_image = write_tsv(tmp_path / "b.tsv", [tsv_row(0, "ISVGEN", "q", RED)])
    with pytest.raises(Exception, match="has no image"):
        UniSvgAll(CommonOptions(data=no_image)).load()
    dangling = write_tsv(tmp_path / "c.tsv", [tsv_row(0, "ISVGEN", "q", RED, image="7")])
    with pytest.raises(Exception, match="names row '7', which has no image"):
        UniSvgAll(CommonOptions(data=dangling)).load()
    garbage = write_tsv(tmp_path / "d.tsv", [tsv_row(0, "ISVGEN", "q", RED, image="[1, 2" * 20)])
    with pytest.raises(Exception, match="not a base64 image"):
        UniSvgAll(CommonOptions(data=garbage)).load()


def test_image_cells_as_vlmevalkit_writes_them(tmp_path: Path) -> None:
    listed = write_tsv(tmp_path / "a.tsv", [
        tsv_row(0, "ISVGEN", "q", RED, image=str([IMAGE, IMAGE])),
        tsv_row(1, "ISVGUN_color", "q", "red", image="0"),  # another row's index
    ])
    first, second = UniSvgAll(CommonOptions(data=listed)).load()
    parts = [p["type"] for p in first.messages[0]["content"]]
    assert parts == ["text", "image_url", "image_url"]
    assert second.messages[0]["content"][1] == first.messages[0]["content"][1]


def test_an_empty_understanding_answer_scores_nothing(renderer: Renderer) -> None:
    """VLMEvalKit e8e78f05 reads an empty answer cell as NaN and scores the row 0 (issue 27,
    unisvg_numbers.json: easy_acc 0.4167 there vs 0.6111 with the rules applied to "");
    the rules alone give "" a 1 when the ground truth names no shape or no transform."""
    task = UniSvgAll(CommonOptions())
    no_shape, no_transform = "It is a plain drawing.", "There is no transformation."
    assert rules.shape_score("", no_shape) == 1.0 and rules.transform_score("", no_transform) == 1.0
    for kind, truth in (("CSVGUN_shape", no_shape), ("CSVGUN_transform", no_transform),
                        ("CSVGUN_size", "64 by 48")):
        for empty in ("", "  \n"):
            assert task.score(sample(kind, truth), empty, renderer).metrics == {"accuracy": 0.0}
    assert task.score(sample("CSVGUN_shape", no_shape), "none", renderer).metrics == {
        "accuracy": 1.0}


def test_the_builtin_tsv_separates_the_oracle(tmp_path: Path, renderer: Renderer) -> None:
    """The built-in sample: four rows of each generation type and two of each understanding
    type; the oracle redraws an icon exactly, and on every rule-scored row its answer scores 1
    where each hostile SVG scores 0."""
    builtin.write(tmp_path)
    task = UniSvgAll(CommonOptions(data=tmp_path))
    samples = task.load()
    assert Counter(sample.group for sample in samples) == {
        **dict.fromkeys(GENERATION, 4), **dict.fromkeys(UNDERSTANDING, 2)}
    assert task.score(samples[0], samples[0].reference, renderer).metrics["ssim"] == 1.0
    for sample in samples:
        if sample.group in RULES:
            assert task.score(sample, sample.reference, renderer).metrics == {"accuracy": 1.0}
            for hostile in HOSTILE_SVGS:
                assert task.score(sample, hostile, renderer).metrics == {"accuracy": 0.0}

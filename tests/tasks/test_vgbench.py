"""VGBench (SVG part): VGQA prompts and scoring, VGen's clean-up against the released code, and
end-to-end runs of the oracle and baselines on tiny files in the released schemas.

"Released" values are what vgbench/VGBench at d4e4601 gives on the replies of
``support.vgbench_data``: ``tests/upstream/vgbench.py`` runs the scoring block of
``evaluate.py`` ``main()`` and ``generate.py``'s clean-up, unmodified through ``ast``, and prints
the ``RELEASED_*`` constants below (equal when last run).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from support.vgbench_data import VGEN_REPLIES, VGQA_REPLIES
from typer.testing import CliRunner

from svgeval.cli import app
from svgeval.metrics.presets import get_preset
from svgeval.render.isolated import Renderer
from svgeval.tasks import get_task
from svgeval.tasks.base import CommonOptions
from svgeval.tasks.vgbench import vgen
from svgeval.tasks.vgbench.vgqa import read_choice

COLOURS = ["red", "blue", "green", "black", "orange", "purple"]
# tests/upstream/vgbench.py: evaluate.py's "Sample size" and "Accuracy" (rounded to 3 places) on
# VGQA_REPLIES, and generate.py's clean-up of VGEN_REPLIES and of no reply (None)
RELEASED_SAMPLE_SIZE = 5
RELEASED_ACCURACY = 0.5
RELEASED_CLEAN = {"```svg\n<svg/>\n```": "<svg/>",
                  "```svg\n<svg/>\n```\nHope this helps!": "<svg/>\n```",
                  "<svg/>": "<svg/>",
                  "Here:\n```svg\n<svg/>\n```": "Here:\n```svg\n<svg/>\n```"}
RELEASED_CLEAN_OF_NONE = ""


def circle(colour: str, r: int = 30) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">'
            f'<circle cx="50" cy="50" r="{r}" fill="{colour}"/></svg>')


def vgqa_record(i: int) -> dict[str, Any]:
    """A record in build_dataset.py's layout."""
    colour = COLOURS[i % 4]
    options = [f"{letter}: {c}" for letter, c in zip("ABCD", COLOURS[:4])]
    return {"idx": i, "data": {"code": circle(colour), "caption": f"a {colour} circle"},
            "query": {"q": "What is the colour of the circle?", "o": options,
                      "a": "ABCD"[i % 4], "idx": i}}


@pytest.fixture(scope="module")
def vgqa(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("vgqa") / "data" / "svg"
    folder.mkdir(parents=True)
    (folder / "final_dataset_color.json").write_text(json.dumps([vgqa_record(i) for i in range(7)]))
    return folder.parent.parent


def run(task: str, model: str, data: Path, out: Path, *extra: str) -> dict[str, Any]:
    result = CliRunner().invoke(app, ["run", task, "--model", model, "--data", str(data),
                                      "--out", str(out), *extra])
    assert result.exit_code == 0, result.output
    return dict(json.loads((out / "results.json").read_text())["metrics"])


def test_the_released_first_character_rule() -> None:
    # the release counts every question but leaves the one without a reply out of the accuracy:
    # 2 right of the 4 answered
    answered = [(reply, gold) for reply, gold in VGQA_REPLIES if reply is not None]
    right = [read_choice(reply, "first-char") == gold for reply, gold in answered]
    assert len(VGQA_REPLIES) == RELEASED_SAMPLE_SIZE
    assert round(sum(right) / len(right), 3) == RELEASED_ACCURACY
    assert [read_choice(reply, "letter") for reply, _ in answered] == ["B"] * 4


def test_the_released_clean_up() -> None:
    assert {reply: vgen.clean_reply(reply).svg for reply in VGEN_REPLIES} == RELEASED_CLEAN
    # no reply: "" in the release, nothing to draw
    assert vgen.clean_reply(RELEASED_CLEAN_OF_NONE).svg is None


def test_zero_and_few_shot_prompts(vgqa: Path) -> None:
    zero = get_task("vgbench-vgqa")(CommonOptions(data=vgqa)).load()
    assert [s.id for s in zero] == ["color/00003", "color/00004", "color/00005", "color/00006"]
    assert zero[0].messages[1]["content"] == (
        f'"{circle("black")}". Given this image, answer What is the colour of the circle?. '
        "Options are A: red, B: blue, C: green, D: black")
    few = get_task("vgbench-vgqa")(CommonOptions(data=vgqa, extra={"prompt": "few-shot"})).load()
    messages = few[0].messages
    assert messages[0]["content"].endswith(
        "Do not add any additional comment in your response. For your reference, I will give "
        "you some example")
    assert [m["role"] for m in messages] == (
        ["system"] + ["user", "user", "assistant"] * 3 + ["user", "user"])
    assert messages[2]["content"].endswith("Options are ['A: red', 'B: blue', 'C: green', "
                                           "'D: black']")  # the list's repr, as released
    assert messages[3]["content"] == "A" and messages[-2]["content"] == (
        f"The code is: {circle('black')}")


def test_vgqa_oracle_best_and_baselines_lower(vgqa: Path, tmp_path: Path) -> None:
    best = run("vgbench-vgqa", "oracle", vgqa, tmp_path / "o")
    assert best["all/accuracy"] == 100.0 and best["color/accuracy_all"] == 100.0
    answers = tmp_path / "a.jsonl"
    replies = {"color/00003": "D", "color/00004": " A", "color/00005": "B", "color/00006": ""}
    answers.write_text("".join(json.dumps({"id": k, "response": v}) + "\n"
                               for k, v in replies.items()))
    mixed = run("vgbench-vgqa", f"replay:{answers}", vgqa, tmp_path / "r")
    # gold D, A, B, C: " A" is wrong (first character), "" left out (released)
    assert mixed["all/accuracy"] == pytest.approx(200 / 3)
    assert mixed["all/accuracy_all"] == 50.0
    letter = run("vgbench-vgqa", f"replay:{answers}", vgqa, tmp_path / "l", "--set",
                 "extract=letter")
    assert letter["all/accuracy"] == 100.0 and letter["all/accuracy_all"] == 75.0


def test_a_record_without_options_is_one_line(tmp_path: Path) -> None:
    record = vgqa_record(0)
    del record["query"]["o"]
    (tmp_path / "final_dataset_color.json").write_text(json.dumps([record]))
    result = CliRunner().invoke(app, ["run", "vgbench-vgqa", "--model", "oracle", "--data",
                                      str(tmp_path), "--out", str(tmp_path / "o")])
    assert result.exit_code != 0 and "(code, q|question, o|options, a|answer)" in result.output


@pytest.fixture()
def tiny_metrics(monkeypatch: pytest.MonkeyPatch, tiny_longclip_dir: Path, tiny_clip_dir: Path,
                 inception_weights: Path) -> None:
    """The real loading code with tiny random Long-CLIP and Inception weights (the processor
    of the tiny CLIP stands in for openai/clip-vit-large-patch14's)."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("SVGEVAL_CLIP_MODEL", str(tiny_longclip_dir))
    monkeypatch.setenv("SVGEVAL_FID_MODEL", str(inception_weights))
    tiny = dataclasses.replace(get_preset(vgen.PRESET), clip_processor=str(tiny_clip_dir))
    monkeypatch.setattr(vgen, "get_preset", lambda name: tiny)
    monkeypatch.setattr(vgen.VGen, "preset", tiny)  # type: ignore[assignment]


def test_vgen_oracle_best_and_a_blank_answer_lower(tmp_path: Path, tiny_metrics: None) -> None:
    records = [{"idx": i, "code": circle(c, 20 + 5 * i), "caption": f"a {c} circle",
                "vformat": "svg"} for i, c in enumerate(COLOURS[:4])]
    data = tmp_path / "svg.json"
    data.write_text(json.dumps(records))
    task = get_task("vgbench-vgen")(CommonOptions(data=data))
    assert task.load()[0].messages[0]["content"] == vgen.SYSTEM
    assert task.score(task.load()[0], "Sure:\n```svg\n<svg/>\n```", Renderer()).failure
    best = run("vgbench-vgen", "oracle", data, tmp_path / "o")
    assert best["svg/fid"] == pytest.approx(0.0, abs=1e-3)
    assert best["svg/fid_all"] == pytest.approx(0.0, abs=1e-3)
    assert best["svg/clip_score"] is not None and -1 <= best["svg/clip_score"] <= 1  # raw cos
    assert best["svg/clip_score"] == best["svg/clip_score_all"]
    blank = run("vgbench-vgen", "identity", data, tmp_path / "i")  # no SVG at all
    assert blank["svg/fid"] is None and blank["svg/clip_score"] is None  # left out: released
    assert blank["svg/fid_all"] > best["svg/fid_all"] + 1e-3

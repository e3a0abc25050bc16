"""SVGBench: prompts, extraction, render size and the judge's two readings against the released
``Benchmark`` class, and end-to-end runs judged by a real local HTTP server.

"Released" values are what johnbean393/SVGBench at 55c1cde gives on the inputs of
``support.svgbench_data``: ``tests/upstream/svgbench.py`` runs the ``Benchmark`` class (read
unmodified through ``ast``, with a stand-in model, judge and renderer) and
``SVGRenderer.calculate_svg_bounds`` and prints the ``RELEASED_*`` constants below (equal when
last run).
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
from support.svgbench_data import (
    JUDGE_REPLIES,
    MODEL_REPLIES,
    QUESTION,
    REQUIREMENTS,
    SIZED_SVGS,
)
from typer.testing import CliRunner

from svgeval.builders.svgbench import builtin
from svgeval.cli import app
from svgeval.tasks import get_task
from svgeval.tasks.base import CommonOptions
from svgeval.tasks.svgbench.size import fixed_size, released_size
from svgeval.tasks.svgbench.task import (
    JUDGE_PROMPT,
    checked_share,
    extract_answer,
    numbered,
    released_share,
)

# tests/upstream/svgbench.py: the model's and the judge's prompts for QUESTION
RELEASED_PROMPT = (
    "\nDraw a red circle. Wrap the SVG code in an SVG code block following the example below."
    "\n\nExample:\n```svg\n<svg viewBox=\"0 0 100 100\" width=\"100\" height=\"100\">\n    "
    "<circle cx=\"50\" cy=\"50\" r=\"40\" fill=\"red\" />\n</svg>\n```\n\nRequirements:\n"
    "1. The circle is red.\n2. It is centred.\n3. There is one circle.\n")
RELEASED_JUDGE_PROMPT = (
    "\nExamine the generated image. How many of the following 3 requirements were fulfilled? "
    "\n\nRespond with a number ONLY, and be strict about the requirements.\n\nRequirements:\n"
    "1. The circle is red.\n2. It is centred.\n3. There is one circle.\n")
# the release's score per judge reply of JUDGE_REPLIES, and their average_score
RELEASED_SCORES = {"2": 0.6666666666666666, "3": 1.0, "5": 1.6666666666666667, "1.5": 0.5,
                   '"3"': 0.0}
RELEASED_AVERAGE = 0.7666666666666666
RELEASED_EXTRACTION = {"fenced": '<svg viewBox="0 0 10 10"><circle r="4"/></svg>',
                       "two": '<svg id="a"></svg>', "none": None}
RELEASED_SIZES = {'<svg width="2in" height="1in"/>': [192, 96],
                  '<svg width="50%" height="30%"/>': [500, 300],
                  '<svg viewBox="0 0 10 20"/>': [10, 20],
                  '<svg width="120" height="80" viewBox="0 0 10 10"/>': [120, 80],
                  '<svg width="10mm" height="3pc"/>': [37, 48],
                  "<svg/>": [800, 600],
                  '<svg width="1e3" height="5"/>': [1000, 5]}


def write_questions(path: Path) -> Path:
    questions = [{"prompt": QUESTION, "requirements": REQUIREMENTS},
                 {"prompt": "Draw a big red disc.", "requirements": ["It is red.", "It is big."]}]
    path.write_text(json.dumps(questions))
    return path


def test_prompts_are_the_released_ones_word_for_word(tmp_path: Path) -> None:
    task = get_task("svgbench")(CommonOptions(data=write_questions(tmp_path / "q.json")))
    sample = task.load()[0]
    assert sample.messages == [{"role": "user", "content": RELEASED_PROMPT}]
    assert JUDGE_PROMPT.format(count=3, requirements=numbered(REQUIREMENTS)) == (
        RELEASED_JUDGE_PROMPT)


def test_the_released_extraction() -> None:
    assert {name: extract_answer(reply).svg for name, reply in MODEL_REPLIES.items()} == (
        RELEASED_EXTRACTION)


def test_the_two_readings_of_a_judge_reply() -> None:
    n = len(REQUIREMENTS)
    shares = {key: released_share(reply, n) for key, reply in JUDGE_REPLIES.items()}
    assert shares == pytest.approx({key: 100 * score for key, score in RELEASED_SCORES.items()})
    checked = {key: checked_share(reply, n) for key, reply in JUDGE_REPLIES.items()}
    # an over-count, a fraction and a bare number (not the object) are left out
    assert checked == {"2": pytest.approx(200 / 3), "3": 100.0, "5": None, "1.5": None,
                       '"3"': None}
    # the release's average, over-count included
    assert sum(shares.values()) / len(shares) / 100 == pytest.approx(RELEASED_AVERAGE)


def test_the_released_render_size() -> None:
    assert {svg: list(released_size(svg)) for svg in SIZED_SVGS} == RELEASED_SIZES
    assert released_size('<svg width="100000" height="10"/>') == (4096, 10)  # ours: clamped
    assert fixed_size('<svg viewBox="0 0 10 20"/>') == (512, 1024)


def red_share(body: dict[str, Any]) -> float:
    (url,) = message_images(body["messages"][-1])
    png = base64.b64decode(url.removeprefix("data:image/png;base64,"))
    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    red = (pixels[..., 0] > 200) & (pixels[..., 1] < 60) & (pixels[..., 2] < 60)
    return float(red.mean())


def judge(body: dict[str, Any]) -> str:
    """A strict judge: every requirement met when a third of the picture is red, else none;
    it answers the unparseable ``many`` for the second question's blank picture."""
    count = int(message_text(body["messages"][-1]).split("following ")[1].split()[0])
    assert body["response_format"]["json_schema"]["name"] == "structured_response"
    if red_share(body) > 1 / 3:
        return json.dumps({"number_of_fulfilled_requirements": count})
    return "many" if count == 2 else json.dumps({"number_of_fulfilled_requirements": 0})


def run(data: Path, out: Path, model: str, server: FakeOpenAIServer) -> dict[str, Any]:
    result = CliRunner().invoke(app, [
        "run", "svgbench", "--data", str(data), "--model", model, "--out", str(out),
        "--judge", "openai-compatible:critic", "--judge-base-url", server.base_url])
    assert result.exit_code == 0, result.output
    return dict(json.loads((out / "results.json").read_text()))


def test_oracle_scores_100_and_blank_or_missing_answers_lower(tmp_path: Path) -> None:
    data = write_questions(tmp_path / "questions.json")
    with FakeOpenAIServer(reply=judge) as server:
        best = run(data, tmp_path / "o", "oracle", server)["metrics"]
        assert best["all/requirement_share"] == 100.0
        assert best["all/requirement_share_checked"] == 100.0
        asked = len(server.chat_requests)
        assert asked == 2  # the two readings share one request per question
        blank = tmp_path / "blank.jsonl"
        blank.write_text("".join(json.dumps({"id": i, "response": r}) + "\n" for i, r in [
            ("000", '```svg\n<svg width="50" height="50"></svg>\n```'), ("001", "<svg></svg>")]))
        results = run(data, tmp_path / "b", f"replay:{blank}", server)
        worst = results["metrics"]
        assert worst["all/requirement_share"] == 0.0  # 0 of 3, and "many" read as 0 (released)
        assert worst["all/requirement_share_checked"] == 0.0  # 0 of 3; "many" left out
        assert results["counts"]["all"]["judge_failures"]["requirement_share_checked"] == 1
        sizes = [Image.open(io.BytesIO(base64.b64decode(message_images(r.body["messages"][-1])[0]
                                                         .split(",")[1]))).size
                 for r in server.chat_requests[asked:] if r.body]
        assert sorted(sizes) == [(50, 50), (800, 600)]  # the released size rule
        none = run(data, tmp_path / "i", "identity", server)["metrics"]
        assert none["all/requirement_share"] == 0.0  # no SVG: 0 without asking
        assert len(server.chat_requests) == asked + 2


def test_the_builtin_questions_and_their_oracle(tmp_path: Path) -> None:
    """The built-in sample: six questions (three in the test subset); the example circle the
    oracle draws satisfies :func:`judge` (a third of the picture red), an answer that does not
    draw scores 0 unasked."""
    builtin.write(tmp_path)
    assert len(get_task("svgbench")(CommonOptions(data=tmp_path)).load()) == 6
    test = get_task("svgbench")(CommonOptions(data=tmp_path, extra={"subset": "test"}))
    assert len(test.load()) == 3
    with FakeOpenAIServer(reply=judge) as server:
        assert run(tmp_path, tmp_path / "o", "oracle", server)["metrics"] == {
            "all/requirement_share": 100.0, "all/requirement_share_checked": 100.0}
        hostile = run(tmp_path, tmp_path / "h", "hostile", server)
        assert hostile["metrics"]["all/requirement_share"] == 0.0
        assert len(server.chat_requests) == 6

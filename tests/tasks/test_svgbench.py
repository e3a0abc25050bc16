"""SVGBench: prompts, extraction, render size and the judge's two readings against the released
``Benchmark`` class, and end-to-end runs judged by a real local HTTP server.

"Released" values were obtained by running johnbean393/SVGBench at 55c1cde: the ``Benchmark``
class loaded unmodified through ``ast`` with a stub model, judge and renderer (a scratch check
script of issue 29, its printed output ``svgbench.out``), and
``SVGRenderer.calculate_svg_bounds`` called on the SVGs of ``test_the_released_render_size``.
Neither the script nor its printed output was kept in this repository; the values it printed are
the constants below.
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

REQUIREMENTS = ["The circle is red.", "It is centred.", "There is one circle."]
# svgbench.out: "generate_prompt" and "judge_prompt" for the question "Draw a red circle."
RELEASED_PROMPT = (
    "\nDraw a red circle. Wrap the SVG code in an SVG code block following the example below."
    "\n\nExample:\n```svg\n<svg viewBox=\"0 0 100 100\" width=\"100\" height=\"100\">\n    "
    "<circle cx=\"50\" cy=\"50\" r=\"40\" fill=\"red\" />\n</svg>\n```\n\nRequirements:\n"
    "1. The circle is red.\n2. It is centred.\n3. There is one circle.\n")
RELEASED_JUDGE_PROMPT = (
    "\nExamine the generated image. How many of the following 3 requirements were fulfilled? "
    "\n\nRespond with a number ONLY, and be strict about the requirements.\n\nRequirements:\n"
    "1. The circle is red.\n2. It is centred.\n3. There is one circle.\n")


def write_questions(path: Path) -> Path:
    questions = [{"prompt": "Draw a red circle.", "requirements": REQUIREMENTS},
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
    fenced = "Sure!\n```svg\n<svg viewBox=\"0 0 10 10\"><circle r=\"4\"/></svg>\n```\nDone"
    assert extract_answer(fenced).svg == '<svg viewBox="0 0 10 10"><circle r="4"/></svg>'
    assert extract_answer('<svg id="a"></svg> and <svg id="b"></svg>').svg == '<svg id="a"></svg>'
    assert extract_answer("no svg at all").svg is None


def test_the_two_readings_of_a_judge_reply() -> None:
    # released scores (svgbench.out): judge 2 of 3 -> 0.6667, 3 -> 1.0, 5 -> 1.6667, 1.5 -> 0.5
    reply = {n: json.dumps({"number_of_fulfilled_requirements": n}) for n in (2, 3, 5, 1.5)}
    assert released_share(reply[2], 3) == pytest.approx(100 * 0.6666666666666666)
    assert released_share(reply[5], 3) == pytest.approx(100 * 1.6666666666666667)
    assert released_share(reply[1.5], 3) == pytest.approx(50.0)
    assert checked_share(reply[2], 3) == pytest.approx(200 / 3)
    assert checked_share(reply[3], 3) == 100.0
    assert checked_share(reply[5], 3) is None and checked_share(reply[1.5], 3) is None
    assert released_share("3", 3) == 0.0 and checked_share("3", 3) is None  # not the object
    # the release's average of [0.6667, 1.0, 1.6667, 0.5, 0.0] is 0.7667 (over-count included)
    scores = [released_share(reply[2], 3), released_share(reply[3], 3),
              released_share(reply[5], 3), released_share(reply[1.5], 3), 0.0]
    assert round(sum(scores) / len(scores) / 100, 4) == 0.7667


def test_the_released_render_size() -> None:
    # calculate_svg_bounds of the release on the same SVGs
    released = {'<svg width="2in" height="1in"/>': (192, 96),
                '<svg width="50%" height="30%"/>': (500, 300),
                '<svg viewBox="0 0 10 20"/>': (10, 20),
                '<svg width="120" height="80" viewBox="0 0 10 10"/>': (120, 80),
                '<svg width="10mm" height="3pc"/>': (37, 48),
                "<svg/>": (800, 600),
                '<svg width="1e3" height="5"/>': (1000, 5)}
    for svg, size in released.items():
        assert released_size(svg) == size, svg
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

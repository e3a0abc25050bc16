"""Generating understanding items with a (scripted) vision model, and reading them back."""

from __future__ import annotations

import asyncio
import base64
import io
import json
from pathlib import Path

import pytest
from PIL import Image

from svgeval.builders.svgenius.qa_generation import generate_qa_items, parse_generated_questions
from svgeval.models.base import Generation, GenerationRequest, Model, ModelError
from svgeval.render.isolated import Renderer
from svgeval.svg.demo_corpus import demo_svg
from svgeval.tasks.base import CommonOptions
from svgeval.tasks.svgenius import prompts
from svgeval.tasks.svgenius.understanding import SvgeniusUnderstanding

REPLY = """1. Perceptual Question:
- Question: What shape is the body of the fish? Options: A) Square; B) Ellipse; C) Star; \
D) Triangle
Answer: B

2. **Semantic Question:**
- **Question:** Where would this icon most likely appear?
Options:
A) A seafood menu
B) A weather app
C) A calculator
D) A car dashboard
**Answer:** A
"""


class ScriptedModel(Model):
    """Answers from a script by sample id and remembers every request."""

    spec = "scripted"

    def __init__(self, replies: dict[str, str]) -> None:
        self.replies = replies
        self.requests: list[GenerationRequest] = []

    async def generate(self, request: GenerationRequest) -> Generation:
        self.requests.append(request)
        reply = self.replies.get(request.sample_id)
        if reply is None:
            raise ModelError("no scripted reply")
        return Generation(reply)


def test_parses_both_formats_of_the_prompt() -> None:
    first, second = parse_generated_questions(REPLY)
    assert first == {
        "question": "What shape is the body of the fish?",
        "option": {"A": "Square", "B": "Ellipse", "C": "Star", "D": "Triangle"},
        "answer": "B",
    }
    assert second["question"] == "Where would this icon most likely appear?"
    assert second["option"]["D"] == "A car dashboard" and second["answer"] == "A"


def test_incomplete_questions_are_dropped() -> None:
    assert parse_generated_questions("Question: Why? Options: A) x; B) y Answer: A") == []
    assert parse_generated_questions("no questions here") == []


def test_generates_items_in_the_released_layout(tmp_path: Path, renderer: Renderer) -> None:
    icons = tmp_path / "icons"
    icons.mkdir()
    (icons / "fish.svg").write_text(demo_svg("fish"), encoding="utf-8")
    (icons / "fish.txt").write_text("a blue fish", encoding="utf-8")
    (icons / "sun.svg").write_text(demo_svg("sun"), encoding="utf-8")
    (icons / "tree.svg").write_text(demo_svg("tree"), encoding="utf-8")
    model = ScriptedModel({"fish.svg": REPLY, "sun.svg": "I do not know."})
    out = tmp_path / "qa" / "custom_generation_results.json"
    result = asyncio.run(generate_qa_items(icons, model, out, image_size=64, renderer=renderer))

    assert result.skipped == {
        "sun.svg": "0 complete question(s) in the answer",
        "tree.svg": "model error: no scripted reply",
    }
    request = next(r for r in model.requests if r.sample_id == "fish.svg")
    (message,) = request.messages
    text_part, image_part = message["content"]
    assert text_part == {"type": "text", "text": f"{prompts.QA_GENERATION}\n\nCaption: a blue fish"}
    url = image_part["image_url"]["url"]
    assert image_part["type"] == "image_url" and url.startswith("data:image/png;base64,")
    image = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
    assert image.format == "PNG" and image.size == (64, 64)

    items = json.loads(out.read_text(encoding="utf-8"))
    assert items == result.items and len(items) == 1
    assert items[0]["index"] == 0 and items[0]["caption"] == "a blue fish"
    assert items[0]["image_path"] == "../icons/fish.png"
    assert items[0]["questions"]["question1"]["answer"] == "B"

    task = SvgeniusUnderstanding(CommonOptions(tier="easy", extra={"file": str(out)}))
    samples = task.load()
    assert [sample.id for sample in samples] == ["easy/0/perceptual", "easy/0/semantic"]
    assert demo_svg("fish") in samples[0].messages[0]["content"]
    assert task.score(samples[1], samples[1].reference, renderer).metrics["semantic_acc"] == 100.0


def test_caption_falls_back_to_the_file_name(tmp_path: Path, renderer: Renderer) -> None:
    (tmp_path / "red_hot-air_balloon.svg").write_text(demo_svg("balloon"), encoding="utf-8")
    model = ScriptedModel({"red_hot-air_balloon.svg": REPLY})
    out = tmp_path / "qa.json"
    result = asyncio.run(generate_qa_items(tmp_path, model, out, renderer=renderer))
    assert result.items[0]["caption"] == "red hot air balloon"


@pytest.mark.parametrize("captions", [{"sun.svg": "a yellow sun"}])
def test_captions_can_be_given(
    tmp_path: Path, renderer: Renderer, captions: dict[str, str]
) -> None:
    (tmp_path / "sun.svg").write_text(demo_svg("sun"), encoding="utf-8")
    model = ScriptedModel({"sun.svg": REPLY})
    asyncio.run(
        generate_qa_items(
            tmp_path, model, tmp_path / "qa.json", captions=captions, renderer=renderer
        )
    )
    assert model.requests[0].messages[0]["content"][0]["text"].endswith("Caption: a yellow sun")

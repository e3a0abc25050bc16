"""New SVGenius understanding items for any folder of SVGs, written by a vision model.

The paper (appendix F) renders each icon with CairoSVG and asks Qwen2.5-VL-72B-Instruct, with
the icon's caption, for one perceptual and one semantic multiple-choice question using the
prompt in :data:`~svgeval.tasks.svgenius.prompts.QA_GENERATION`; people then checked every
question. We send that prompt followed by ``Caption: ...`` and the PNG as an OpenAI-style image
part, parse the two questions, and write items in the released layout (``index``,
``image_path``, ``caption``, ``questions.question1`` perceptual / ``question2`` semantic, each
with ``question``, ``option`` A-D and ``answer``). The manual check is left to the user.

Captions come from ``captions`` when given, else from ``<name>.txt`` beside the SVG, else from
the file name. ``image_path`` names a PNG beside the SVG, relative to the output file, as in the
release; the task reads the SVG of the same name.
"""

from __future__ import annotations

import asyncio
import base64
import io
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image

from svgeval.builders.svg_files import read_svg_folder, write_cases
from svgeval.messages import Message
from svgeval.models.base import GenerationRequest, Model, ModelError
from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.render.picture import RenderFailure
from svgeval.tasks.svgenius import prompts

_QUESTION = re.compile(r"\**\s*question\s*\d*\s*\**\s*[:：]", re.IGNORECASE)
_OPTIONS = re.compile(r"\**\s*options?\s*\**\s*[:：]", re.IGNORECASE)
_ANSWER = re.compile(r"\**\s*answer\s*\**\s*[:：]\s*\**\s*\(?([A-D])(?![A-Za-z])", re.IGNORECASE)


@dataclass
class QaGeneration:
    """What :func:`generate_qa_items` wrote, and the SVGs it skipped with the reason."""

    items: list[dict[str, Any]] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)


def parse_generated_questions(text: str) -> list[dict[str, Any]]:
    """Every complete question in a response (text, options A-D, answer), in order."""
    labels = list(_QUESTION.finditer(text))
    ends = [label.start() for label in labels[1:]] + [len(text)]
    blocks = (_parse_block(text[label.end() : end]) for label, end in zip(labels, ends))
    return [block for block in blocks if block is not None]


def _parse_block(block: str) -> dict[str, Any] | None:
    answer = _ANSWER.search(block)
    if answer is None:
        return None
    body = block[: answer.start()]
    options_label = _OPTIONS.search(body)
    markers = []
    position = options_label.end() if options_label else 0
    for letter in "ABCD":
        marker = re.compile(rf"(?:^|(?<=[\s;(*]))\**{letter}\s*[).:]\**\s").search(body, position)
        if marker is None:
            return None
        markers.append(marker)
        position = marker.end()
    question_end = options_label.start() if options_label else markers[0].start()
    ends = [marker.start() for marker in markers[1:]] + [len(body)]
    options = {
        letter: body[marker.end() : end].strip().rstrip(";").strip()
        for letter, marker, end in zip("ABCD", markers, ends)
    }
    question = body[:question_end].strip().strip("*").strip()
    if not question or not all(options.values()):
        return None
    return {"question": question, "option": options, "answer": answer.group(1).upper()}


def _caption(svg_path: Path, captions: Mapping[str, str] | None) -> str:
    if captions and svg_path.name in captions:
        return captions[svg_path.name]
    sidecar = svg_path.with_suffix(".txt")
    if sidecar.is_file():
        return sidecar.read_text(encoding="utf-8").strip()
    return re.sub(r"[_\-]+", " ", svg_path.stem).strip()


def _png_data_url(renderer: Renderer, svg: str, size: int) -> str | None:
    drawn = renderer.render(svg, RenderSpec.square(size))
    if isinstance(drawn, RenderFailure):
        return None
    buffer = io.BytesIO()
    Image.fromarray(drawn.pixels).save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def qa_messages(caption: str, image_url: str) -> list[Message]:
    """The question-generation request: the paper's prompt, the caption and the image."""
    text = f"{prompts.QA_GENERATION}\n\nCaption: {caption}"
    return [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": text},
                {"type": "image_url", "image_url": {"url": image_url}},
            ],
        }
    ]


async def generate_qa_items(
    svg_dir: Path,
    model: Model,
    out: Path,
    *,
    captions: Mapping[str, str] | None = None,
    image_size: int = 512,
    temperature: float = 0.0,
    max_tokens: int | None = None,
    concurrency: int = 4,
    renderer: Renderer | None = None,
) -> QaGeneration:
    """Ask ``model`` for a perceptual and a semantic question about every SVG in ``svg_dir``.

    Writes the items to ``out`` (JSON, released layout) and returns them with the skipped
    SVGs (render failure, model error, or fewer than two complete questions in the answer).
    """
    folder, out = Path(svg_dir), Path(out)
    result = QaGeneration()
    entries: dict[str, dict[str, Any]] = {}
    semaphore = asyncio.Semaphore(max(1, concurrency))
    pool = renderer or Renderer(timeout_s=10.0)

    async def ask(name: str, svg: str) -> None:
        svg_path = folder / name
        image_url = await asyncio.to_thread(_png_data_url, pool, svg, image_size)
        if image_url is None:
            result.skipped[name] = "does not render"
            return
        caption = _caption(svg_path, captions)
        request = GenerationRequest(
            sample_id=name,
            messages=qa_messages(caption, image_url),
            temperature=temperature,
            max_tokens=max_tokens,
        )
        try:
            async with semaphore:
                generation = await model.generate(request)
        except ModelError as error:
            result.skipped[name] = f"model error: {error}"
            return
        questions = parse_generated_questions(generation.text)
        if len(questions) < 2:
            result.skipped[name] = f"{len(questions)} complete question(s) in the answer"
            return
        image_path = os.path.relpath(svg_path.with_suffix(".png"), out.resolve().parent)
        entries[name] = {
            "image_path": Path(image_path).as_posix(),
            "caption": caption,
            "questions": {"question1": questions[0], "question2": questions[1]},
        }

    try:
        svgs = read_svg_folder(folder)
        await asyncio.gather(*(ask(name, svg) for name, svg in svgs.items()))
    finally:
        if renderer is None:
            pool.close()
    answered = [name for name in svgs if name in entries]
    result.items = [{"index": index, **entries[name]} for index, name in enumerate(answered)]
    write_cases(result.items, out)
    return result

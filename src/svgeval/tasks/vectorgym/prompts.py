"""VectorGym prompts: the released generation prompts, the released judge prompts, our rubric.

Generation (ServiceNow/VectorGym): the user prompts of ``data/processor.py`` and the system
prompts of ``configs/generation_prompts.yaml``. The released OpenRouter path sends the system
prompt as the first text part of the user message (then, for sketches, the image, then the
prompt); its vLLM path sends the bare prompt. ``--set prompt=openrouter`` (default) and
``prompt=vllm`` choose.

Judge (``metrics/prompts.json``, ``metrics/compute_vlm_judge.py``): one user message whose
parts are the judge's system prompt, the user prompt (caption or instruction filled in) and the
images (reference render then output render; Text2SVG: the output render alone). The released
code never sends the ``output_format`` entry; svgeval appends it by default (``--set
judge_format=sent``), ``judge_format=released`` leaves it out.

Captioning has no released code: :data:`CAPTION_RUBRIC` is ours, written from the paper's
description (Sec. 3.5: an LLM rubric score from 0 to 5, mapped to 0-100).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from svgeval.messages import Message, image_part

_OUTPUT_RULES = (
    "4. Do not include any additional text, explanations, comments, or formatting—only output "
    "valid SVG code.\n"
    "5. The output must be a complete SVG document, starting with '<svg>' and ending with "
    "'</svg>'.\n"
)
SYSTEM_PROMPTS = {
    "text": "You are an expert in generating SVG representations of textual descriptions.\n"
    "Follow these steps carefully:\n"
    "1. Analyze the given text input and identify the key visual elements it describes.\n"
    "2. Convert the description into a minimal and clear SVG representation using basic SVG "
    "shapes.\n"
    "3. Ensure the SVG design is simple, scalable, and directly represents the input text.\n"
    + _OUTPUT_RULES,
    "sketch": "You are an expert in converting images into vector-based SVG representations.\n"
    "Follow these steps carefully:\n"
    "1. Analyze the input image and extract its key shapes, contours, and structural features.\n"
    "2. Convert these features into an SVG format using appropriate primitives.\n"
    "3. Optimize the SVG output by simplifying paths while maintaining accuracy.\n"
    + _OUTPUT_RULES,
    "edit": "You are an expert in editing SVG images based on text instructions.\n"
    "Follow these steps carefully:\n"
    "1. Analyze the original SVG and the editing instruction.\n"
    "2. Apply the requested modifications while preserving the overall structure.\n"
    "3. Ensure the edited SVG is valid and well-formed.\n"
    + _OUTPUT_RULES,
}
"""``configs/generation_prompts.yaml`` (text2svg, sketch2svg, svg_editing), verbatim."""

TEXT_PROMPT = "Convert the input text into an SVG: {caption}"
SKETCH_PROMPT = "Convert the input sketch image into an SVG"
EDIT_PROMPT = "Edit this SVG with the following instruction: {instruction}\n\nOriginal SVG:\n{svg}"
CAPTION_PROMPT = (
    "Describe the image that the following SVG code draws: its content, style and key visual "
    "characteristics. Answer with the description only.\n\nSVG:\n{svg}"
)
"""Ours: the captioning task has no released prompt."""


def generation_message(
    task: str, prompt: str, style: str, image: bytes | None = None
) -> list[Message]:
    """The released request: ``openrouter`` puts the task's system prompt first, ``vllm``
    sends the prompt alone; a sketch comes before the prompt, as a PNG data URL."""
    parts: list[dict[str, Any]] = []
    if style == "openrouter" and task in SYSTEM_PROMPTS:
        parts.append({"type": "text", "text": SYSTEM_PROMPTS[task]})
    if image is not None:
        parts.append(image_part(image))
    parts.append({"type": "text", "text": prompt})
    if len(parts) == 1:
        return [{"role": "user", "content": prompt}]
    return [{"role": "user", "content": parts}]


_RUBRIC = (
    "**Scoring Rubric (1-10):**\n- **1-3 (Poor)**:\n  - {poor}\n- **4-6 (Fair)**:\n  - {fair}\n"
    "- **7-9 (Good)**:\n  - {good}\n- **10 (Excellent)**:\n  - {excellent}\n\n"
    "**Provide your score and a brief explanation.**"
)
JUDGE_PROMPTS: dict[str, tuple[str, str]] = {
    "text": (
        ("You are an expert evaluator for text-to-SVG generation tasks. Your job is to assess "
        "how well a generated image matches a given text description."),
        ("Please evaluate how well the generated image matches the text description. Use the "
        "following criteria:\n\n1. **Visual Accuracy**: Does the image accurately represent "
        "what's described in the text?\n2. **Completeness**: Are all elements mentioned in the "
        "text present in the image?\n3. **Quality**: Is the image clear, visually appealing, "
        "and well-formed?\n\n**Text Description**: {caption}\n\n**Scoring Rubric (1-10):**\n"
        "- **1-3 (Poor)**: Mostly unrelated to the text, major inaccuracies or missing "
        "elements, poor quality.\n- **4-6 (Fair)**: Partially related to the text, some missing "
        "or incomplete elements, moderate quality.\n- **7-9 (Good)**: Mostly accurate and "
        "complete, minor issues in detail or quality, clear and visually appealing.\n- **10 "
        "(Excellent)**: Perfect match to the text description, all elements accurate, "
        "excellent quality.\n\n**Provide your score and a brief explanation.**"),
    ),
    "sketch": (
        ("You are an expert evaluator for sketch-to-image generation tasks. Your job is to "
        "assess how well a generated image matches an input sketch."),
        "Please evaluate how well the generated image matches the input sketch. Use the "
        "following criteria:\n\n1. **Shape Fidelity**: Do the shapes in the generated image "
        "match the sketch?\n2. **Structure Preservation**: Is the overall structure and layout "
        "maintained?\n3. **Detail Accuracy**: Are important details from the sketch captured?"
        "\n4. **Quality**: Is the generated image clear, visually appealing, and well-formed?"
        "\n\n" + _RUBRIC.format(
            poor="Significant deviations in shape, structure, or detail.\n  - Poor image "
            "quality.",
            fair="Partial match to the sketch, with noticeable inaccuracies.\n  - Moderate "
            "image quality.",
            good="Closely matches the sketch, with minor issues in detail or quality.\n  - "
            "Clear and visually appealing.",
            excellent="Perfectly matches the sketch.\n  - All details are accurate.\n  - "
            "Excellent image quality with no issues.",
        ),
    ),
    "edit": (
        ("You are an expert evaluator for image editing tasks. Your job is to assess how well a "
        "generated image follows editing instructions applied to an original image."),
        "Please evaluate how well the generated image follows the editing instructions applied "
        "to the original image. Use the following criteria:\n\n1. **Instruction Compliance**: "
        "Does the generated image follow the editing instructions?\n2. **Original "
        "Preservation**: Are unmodified parts of the original image preserved?\n3. **Quality**:"
        " Is the edited image clear, visually appealing, and well-formed?\n4. **Coherence**: "
        "Does the final result look natural and coherent?\n\n**Editing Instructions**: "
        "{caption}\n\n" + _RUBRIC.format(
            poor="Instructions are not followed.\n  - Significant issues in quality or "
            "coherence.",
            fair="Partially follows instructions, with noticeable issues in preservation or "
            "quality.\n  - Moderate coherence.",
            good="Mostly follows instructions, with minor issues in detail or quality.\n  - "
            "Clear and visually appealing.",
            excellent="Perfectly follows instructions.\n  - All elements are accurate and "
            "coherent.\n  - Excellent image quality with no issues.",
        ),
    ),
}
"""``metrics/prompts.json``: (system prompt, user prompt) per task, verbatim."""
OUTPUT_FORMAT = "score: <number 1-10>\nexplanation: <brief explanation>"
"""The ``output_format`` entry of every task in ``metrics/prompts.json`` (never sent there)."""

CAPTION_RUBRIC = (
    "You are grading a caption of an SVG image against a reference caption written by a "
    "human expert.\n\nReference caption:\n{reference}\n\nCandidate caption:\n{candidate}\n\n"
    "Score the candidate from 0 to 5:\n"
    "- 5: describes the same content, style and key visual properties (shapes, colours, "
    "layout, text) as the reference, with nothing wrong.\n"
    "- 4: the same main content and most visual properties; a minor omission or error.\n"
    "- 3: the main content is right but several properties are missing or wrong.\n"
    "- 2: only part of the content is right.\n"
    "- 1: barely related to the reference.\n"
    "- 0: unrelated, empty or not a description.\n\n"
    "Answer in this format:\nscore: <integer 0-5>\nexplanation: <brief explanation>"
)
"""Ours (marked as such in docs/suites/vectorgym.md): the paper names a GPT-5 rubric score from 0
to 5 mapped to 0-100 but prints no prompt."""


def judge_message(task: str, caption: str, images: Sequence[bytes], send_format: bool) -> (
    list[Message]
):
    """The released judge request for ``task`` (``text``, ``sketch``, ``edit``)."""
    system, user = JUDGE_PROMPTS[task]
    text = user.format(caption=caption)
    if send_format:
        text += "\n\n**Output format:**\n" + OUTPUT_FORMAT
    parts = [{"type": "text", "text": system}, {"type": "text", "text": text}]
    return [{"role": "user", "content": parts + [image_part(png) for png in images]}]


_STRICT = re.compile(r"^[\s*_#]*score[\s*_]*[:：][\s*_]*(\d+)[\s*_]*(?:/\s*10)?\s*$",
                     re.IGNORECASE | re.MULTILINE)
_RELEASED = (r"score:\s*(\d+(?:\.\d+)?)", r"(\d+(?:\.\d+)?)/10", r"rate[ds]?\s*(\d+(?:\.\d+)?)",
             r"(\d+(?:\.\d+)?)\s*out\s*of\s*10", r"(\d+(?:\.\d+)?)")
_REFUSALS = ("i'm sorry, i can't assist", "i cannot assist", "i'm unable to assist",
             "i can't help with", "against my guidelines", "content policy")


def parse_score_line(reply: str, low: int = 1, high: int = 10) -> float | None:
    """Strict: exactly one line ``score: N`` (markdown emphasis and ``/10`` allowed) with an
    integer N in [low, high]; anything else (no such line, two of them, 7.5, 11) is None."""
    found = _STRICT.findall(reply)
    if len(found) != 1:
        return None
    value = int(found[0])
    return float(value) if low <= value <= high else None


def parse_released(reply: str) -> float | None:
    """``extract_score_from_response`` of the released code: a refusal is None; else the first
    of ``score: N``, ``N/10``, ``rated N``, ``N out of 10``, then any number, whose first match
    lies in [1, 10]."""
    lower = reply.lower()
    if any(refusal in lower for refusal in _REFUSALS):
        return None
    for pattern in _RELEASED:
        found = re.search(pattern, lower)
        if found and 1 <= float(found.group(1)) <= 10:
            return float(found.group(1))
    return None


def parse_rubric(reply: str) -> float | None:
    """The caption rubric: ``score: N`` with N in 0-5, mapped to ``20 x N`` (0-100)."""
    value = parse_score_line(reply, low=0, high=5)
    return None if value is None else 20.0 * value

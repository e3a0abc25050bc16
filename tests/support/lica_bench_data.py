"""A tiny LICA-Bench bundle in the release's layout: ``<root>/benchmarks/svg/svg-<n>.json``
with the records' SVG files and pictures beside them (``tasks/svg.py`` ``load_data`` schemas,
``purvanshi/lica-bench`` c5c63dc), written by the built-in sample's
:func:`~svgeval.builders.lica_bench.builtin.write_bundle`, and the replies replayed to it. The
released code runs on the very same files and replies in ``tests/upstream/lica_bench.py`` (see
``test_lica_bench.py``)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from PIL import Image

from svgeval.builders.lica_bench.builtin import write_bundle as write_records

NS = 'xmlns="http://www.w3.org/2000/svg"'
RED = f'<svg {NS} width="4" height="4"><rect width="4" height="4" fill="red"/></svg>'
BLUE = RED.replace("red", "blue")
HALF = f'<svg {NS} width="4" height="4"><rect width="2" height="4" fill="black"/></svg>'
CIRCLE = f'<svg {NS} viewBox="0 0 10 10"><circle cx="5" cy="5" r="4" fill="#00f"/></svg>'
PADDED_RED = (f'<?xml version="1.0" encoding="UTF-8"?>\n<svg {NS} width="4" height="4">\n'
              '  <!-- a red square -->\n  <metadata>made by hand</metadata>\n'
              '  <rect x="0" y="0" width="4" height="4" fill="#ff0000" stroke="none"/>\n</svg>')

QA = [
    {"svg_path": "svgs/red.svg", "image_path": "images/red.png", "questions": {
        "perceptual_color": {"question": "What colour fills the square?",
                             "option": {"A": "blue", "B": "red", "C": "green", "D": "black"},
                             "answer": "b"},
        "semantic_0": {"question": "What does it show?",
                       "option": {"A": "a cat", "B": "a house", "C": "a square", "D": "a tree"},
                       "answer": "C"},
        "perceptual_shape": {"question": "Unanswered", "option": {"A": "x"}, "answer": None}}},
    {"svg_path": "svgs/missing.svg", "questions": {
        "perceptual_1": {"question": "How many shapes?",
                         "option": {"A": "1", "B": "2", "C": "3", "D": "4"}, "answer": "A"},
        "semantic_1": {"question": "Is it a logo?",
                       "option": {"A": "no", "B": "maybe", "C": "unsure", "D": "yes"},
                       "answer": "D"}}},
]
BUGFIX = [
    {"bug_svg": RED.replace('"red"/>', '"red">'), "ground_truth": RED, "error_type": "tag",
     "difficulty": "easy"},
    {"bug_svg": CIRCLE.replace('r="4"', 'r="4'), "ground_truth": CIRCLE,
     "error_type": "attribute", "difficulty": "hard"},
]
OPTIMIZE = [
    {"origin_svg": PADDED_RED, "opti_svg": RED, "opti_ratio": 0.5},
    {"origin_svg": CIRCLE},
]
STYLE = [
    {"original": RED, "modified": BLUE, "command": "Change the fill colour to blue."},
    {"original": HALF, "modified": HALF.replace("black", "red"), "command": "Make it red."},
]
GENERATION = [
    {"question": ["a red square"], "answer": RED, "image": "images/red.png"},
    {"question": ["a blue circle"], "answer": CIRCLE, "image": "images/circle.jpg"},
]
FILES: dict[str, Any] = {
    "svg-1": QA, "svg-2": QA, "svg-3": BUGFIX, "svg-4": OPTIMIZE, "svg-5": STYLE,
    "svg-6": GENERATION, "svg-7": GENERATION, "svg-8": GENERATION}

BUG0 = BUGFIX[0]["bug_svg"]
ANSWERS = {  # replies replayed to the released tasks and to svgeval, per task, in sample order
    "svg-1": ["The answer is clear: B", "answer: a"],
    "svg-2": ["Answer: C", "D"],
    "svg-3": [f"Here is the fix:\n```svg\n{BUG0}\n```\nFixed:\n```svg\n{RED}\n```",
              CIRCLE.replace("#00f", "#00e")],
    "svg-4": ["", f"```svg\n{CIRCLE}\n```"],
    "svg-5": [BLUE, "I cannot do that."],
    "svg-6": [RED, "<svg><rect></svg>"],
    "svg-7": [CIRCLE, CIRCLE],
    "svg-8": [HALF, f'```xml\n<?xml version="1.0"?>\n{CIRCLE}\n```'],
}


def picture(colour: tuple[int, int, int], form: str, **options: int) -> bytes:
    """A 16 x 16 picture of one colour, encoded as ``form`` with Pillow's ``options``."""
    buffer = io.BytesIO()
    Image.new("RGB", (16, 16), colour).save(buffer, form, **options)
    return buffer.getvalue()


def write_bundle(root: Path) -> Path:
    """The bundle under ``root`` (its ``benchmarks/svg/`` folder holds the task files);
    returns ``root``."""
    files: dict[str, str | bytes] = {
        "svgs/red.svg": RED, "images/red.png": picture((255, 0, 0), "PNG"),
        "images/circle.jpg": picture((0, 0, 255), "JPEG", quality=95)}
    return write_records(root, FILES, files)

LETTER_REPLIES = (
    "Answer: B", "answer: c", "The answer is D.", "I choose A", "Option B is correct", "B",
    "A\nB", "<think>Answer: A</think>Answer: C", "```\nAnswer: D\n```", "Maybe B or C",
    "No idea", "The answer is clear: B",
    "My answer depends on A and B. Answer: B is wrong, it is C",
    "Option A is correct but answer: b")
"""Replies whose letter the released ``_parse_answer_letter`` reads (or not)."""
WRAPPED_REPLIES = ("```svg\n<svg/>\n```", '<?xml version="1.0"?>\n<svg/>',
                   "Here you go:\n```xml\n<svg/>\n```\nDone", "<think>x</think><svg/>",
                   "old:\n```svg\n<svg>1</svg>\n```\nnew:\n```svg\n<svg>2</svg>\n```",
                   "Sure: <svg/> done")
"""Replies whose code the released ``_strip_svg_wrapper`` keeps."""
WHITE = f'<svg {NS} width="4" height="4"></svg>'
NOT_SVG = "not an svg"
"""Code that does not render."""

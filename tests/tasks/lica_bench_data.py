"""A tiny LICA-Bench bundle in the release's layout: ``<root>/benchmarks/svg/svg-<n>.json``
with the records' SVG files and pictures beside them (``tasks/svg.py`` ``load_data`` schemas,
``purvanshi/lica-bench`` c5c63dc). Only the standard library and Pillow, so the released code
can be run on the very same files (``/work/scratch/i29/checks/check_lica_tasks.py``)."""

from __future__ import annotations

import json
from pathlib import Path

from PIL import Image

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
FILES = {"svg-1": QA, "svg-2": QA, "svg-3": BUGFIX, "svg-4": OPTIMIZE, "svg-5": STYLE,
         "svg-6": GENERATION, "svg-7": GENERATION, "svg-8": GENERATION}


def write_bundle(root: Path) -> Path:
    """The bundle under ``root`` (its ``benchmarks/svg/`` folder holds the task files);
    returns ``root``."""
    folder = root / "benchmarks" / "svg"
    (folder / "svgs").mkdir(parents=True, exist_ok=True)
    (folder / "images").mkdir(exist_ok=True)
    (folder / "svgs" / "red.svg").write_text(RED, encoding="utf-8")
    Image.new("RGB", (16, 16), (255, 0, 0)).save(folder / "images" / "red.png")
    Image.new("RGB", (16, 16), (0, 0, 255)).save(folder / "images" / "circle.jpg", quality=95)
    for task_id, records in FILES.items():
        (folder / f"{task_id}.json").write_text(json.dumps(records, indent=1), encoding="utf-8")
    return root

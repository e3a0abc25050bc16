"""A tiny SArena folder in the layout of the unzipped ``SArena.zip`` (InternSVG README), written
with the built-in sample's writers (:mod:`svgeval.builders.sarena.builtin`): task lines in
LLaMA-Factory ShareGPT form, ground-truth pictures rendered at 448 px on white."""

from __future__ import annotations

from pathlib import Path

from svgeval.builders.sarena.builtin import Drawing, turns, write_edit, write_lines, write_track
from svgeval.tasks.sarena.data import UNDERSTANDING_FILE

NS = 'xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"'
ICONS = {
    1: f'<svg {NS}><rect x="10" y="10" width="50" height="30" fill="#d02020"/></svg>',
    2: f'<svg {NS}><circle cx="35" cy="60" r="25" fill="#2040c0"/></svg>',
    3: f'<svg {NS}><path d="M10 90L50 10L60 90Z" fill="#20a040"/></svg>',
}
CAPTIONS = {1: "a red square icon", 2: "a blue circle icon", 3: "a green star icon"}
FLIPPED = {  # the horizontal flip of each icon
    1: f'<svg {NS}><rect x="40" y="10" width="50" height="30" fill="#d02020"/></svg>',
    2: f'<svg {NS}><circle cx="65" cy="60" r="25" fill="#2040c0"/></svg>',
    3: f'<svg {NS}><path d="M90 90L50 10L40 90Z" fill="#20a040"/></svg>',
}
QUESTIONS = [  # (subject, correct option)
    ("color", "B"), ("color", "A"), ("geometry", "C"), ("quantity", "D"),
]
DRAWINGS = [  # captions padded: the task strips them, as released
    Drawing(key, svg, f"Draw an SVG of {CAPTIONS[key]}.", f" {CAPTIONS[key]} ")
    for key, svg in ICONS.items()]
IMAGE_PROMPT = "<image>\nWrite the SVG code of this picture."


def build_sarena(root: Path) -> Path:
    """The three tracks, two editing types and the understanding questions under ``root``."""
    write_track(root / "Icon" / "generation", DRAWINGS, IMAGE_PROMPT)
    write_track(root / "illustration", DRAWINGS, IMAGE_PROMPT)
    write_track(root / "chemistry", DRAWINGS, IMAGE_PROMPT, captions=False)
    for kind, answers in (("flip", FLIPPED), ("color_simple", ICONS)):
        write_edit(root, kind, {key: (f"Apply the edit ({kind}) to this SVG:\n{ICONS[key]}", svg)
                                for key, svg in answers.items()})
    write_lines(root / UNDERSTANDING_FILE, [
        {"id": index, "Subject": subject,
         "conversations": turns(f"{ICONS[1]}\nQuestion {index}? A. x B. y C. z D. w",
                                f"{option}. the answer")}
        for index, (subject, option) in enumerate(QUESTIONS)])
    return root

"""A tiny SArena folder in the layout of the unzipped ``SArena.zip`` (InternSVG README): task
lines in LLaMA-Factory ShareGPT form, ground-truth pictures rendered at 448 px on white."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PIL import Image

from svgeval.svg.render import RenderSpec, render_svg_uint8

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


def _lines(path: Path, records: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")


def _truth(folder: Path, answers: dict[int, str]) -> None:
    (folder / "images").mkdir(parents=True, exist_ok=True)
    (folder / "svg").mkdir(parents=True, exist_ok=True)
    for key, svg in answers.items():
        pixels = render_svg_uint8(svg, RenderSpec.square(448, background="white"))
        Image.fromarray(pixels).save(folder / "images" / f"{key}.png")
        (folder / "svg" / f"{key}.svg").write_text(svg, encoding="utf-8")


def turns(prompt: str, answer: str) -> list[dict[str, str]]:
    return [{"from": "human", "value": prompt}, {"from": "gpt", "value": answer}]


def build_track(folder: Path, captions: bool = True) -> None:
    """``text2svg.jsonl``, ``img2svg.jsonl``, ``caption.jsonl``, ``images/``, ``svg/``."""
    _truth(folder, ICONS)
    _lines(folder / "text2svg.jsonl", [
        {"id": key, "conversations": turns(f"Draw an SVG of {CAPTIONS[key]}.", svg)}
        for key, svg in ICONS.items()])
    _lines(folder / "img2svg.jsonl", [
        {"id": key, "image": f"images/{key}.png",
         "conversations": turns("<image>\nWrite the SVG code of this picture.", svg)}
        for key, svg in ICONS.items()])
    if captions:
        _lines(folder / "caption.jsonl", [
            {"image": f"{key}.png", "caption": [{"generated_text": f" {text} "}]}
            for key, text in CAPTIONS.items()])


def build_sarena(root: Path) -> Path:
    """The three tracks, two editing types and the understanding questions under ``root``."""
    build_track(root / "Icon" / "generation")
    build_track(root / "illustration")
    build_track(root / "chemistry", captions=False)
    for kind, answers in (("flip", FLIPPED), ("color_simple", ICONS)):
        _truth(root / "Icon" / "edit" / "data" / kind, answers)
        _lines(root / "Icon" / "edit" / f"{kind}.jsonl", [
            {"id": key, "conversations": turns(
                f"Apply the edit ({kind}) to this SVG:\n{ICONS[key]}", svg)}
            for key, svg in answers.items()])
    _lines(root / "Icon" / "understanding" / "sarena_un.jsonl", [
        {"id": index, "Subject": subject,
         "conversations": turns(f"{ICONS[1]}\nQuestion {index}? A. x B. y C. z D. w",
                                f"{option}. the answer")}
        for index, (subject, option) in enumerate(QUESTIONS)])
    return root

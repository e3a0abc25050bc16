"""Build SVGEditBench cases from any SVG files with the paper's rules.

Nishina & Matsui (CVPRW 2024), Sec. 3.3 and supplementary Sec. 6: for Change Color and Set Contour
a fill colour is drawn at random from the ``fill`` attributes of the SVG, and Change Color's target
colour from red, green, blue, yellow, cyan, magenta, white and black. Answers change one attribute:

* change_color: every ``fill`` equal to the chosen colour becomes the target colour;
* set_contour: those elements get ``stroke="black" stroke-width="1"``;
* compression: the answer is the input itself (the metric is length ratio plus MSE);
* upside_down: the root gets ``transform="translate(0,H) scale(1,-1)"`` (H: viewBox height);
* transparency: the root gets ``opacity="0.5"``;
* crop_to_half: the viewBox width (and a ``width`` attribute, if any) is halved.

``colors="release"`` writes target colours by CSS name as the official release does (so "green" is
#008000); ``colors="paper"`` uses the hex values the paper lists (green #00FF00).
Draws are seeded per file (``random.Random(f"{seed}:{case id}")``), so a case does not depend on
which other files are in the folder.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from lxml import etree

from svgeval.svg.sanitize import check_svg
from svgeval.tasks.svgeditbench.prompts import SUBTASKS, build_prompt

TARGET_COLORS: dict[str, str] = {
    "red": "#FF0000",
    "green": "#00FF00",
    "blue": "#0000FF",
    "yellow": "#FFFF00",
    "cyan": "#00FFFF",
    "magenta": "#FF00FF",
    "white": "#FFFFFF",
    "black": "#000000",
}
"""Target colour names (as in the prompt) and the hex values the paper gives for them."""

ColorStyle = Literal["release", "paper"]


@dataclass(frozen=True)
class EditCase:
    """One SVGEditBench case: the query text and the answer SVG."""

    case_id: str
    subtask: str
    query: str
    answer: str


def emoji_name(stem: str) -> str:
    """Unicode name of a Twemoji file stem such as ``1f3a9`` (lower case), else the stem itself."""
    try:
        return " ".join(unicodedata.name(chr(int(part, 16))) for part in stem.split("-")).lower()
    except ValueError:
        return re.sub(r"[-_]+", " ", stem).strip()


def _fill_colors(root: etree._Element) -> list[str]:
    seen: dict[str, None] = {}
    for element in root.iter():
        fill = element.get("fill") if isinstance(element.tag, str) else None
        if fill and fill != "none" and not fill.startswith("url("):
            seen.setdefault(fill, None)
    return list(seen)


def _view_box(root: etree._Element) -> list[float] | None:
    box = root.get("viewBox")
    if box:
        return [float(v) for v in re.split(r"[\s,]+", box.strip())]
    try:
        return [0.0, 0.0, float(root.get("width", "")), float(root.get("height", ""))]
    except ValueError:
        return None


def _number(value: float) -> str:
    return f"{value:g}"


def answer_for(svg: str, subtask: str, color: str | None, target: str | None) -> str | None:
    """The answer SVG for ``subtask``, or None when the rule cannot apply to this SVG."""
    if subtask == "compression":
        return svg
    root = etree.fromstring(check_svg(svg))
    if subtask in ("change_color", "set_contour"):
        for element in root.iter():
            if isinstance(element.tag, str) and element.get("fill") == color:
                if subtask == "change_color":
                    element.set("fill", str(target))
                else:
                    element.set("stroke", "black")
                    element.set("stroke-width", "1")
    elif subtask in ("upside_down", "crop_to_half"):
        box = _view_box(root)
        if box is None or len(box) != 4:
            return None
        if subtask == "upside_down":
            root.set("transform", f"translate(0,{_number(2 * box[1] + box[3])}) scale(1,-1)")
        else:
            root.set("viewBox", " ".join(_number(v) for v in (box[0], box[1], box[2] / 2, box[3])))
            width = root.get("width")
            if width is not None and re.fullmatch(r"[\d.]+", width):
                root.set("width", _number(float(width) / 2))
    elif subtask == "transparency":
        root.set("opacity", "0.5")
    return str(etree.tostring(root, encoding="unicode"))


def build_cases(
    svg_files: Iterable[Path],
    *,
    seed: int = 0,
    colors: ColorStyle = "release",
    names: dict[str, str] | None = None,
) -> list[EditCase]:
    """All six subtasks for every SVG file; files with no fill colour skip the colour subtasks.

    ``names`` maps a file stem to the name used in the prompt (default: :func:`emoji_name`).
    """
    cases: list[EditCase] = []
    for path in sorted(svg_files):
        svg = path.read_text(encoding="utf-8").strip()
        root = etree.fromstring(check_svg(svg))
        stem = path.stem
        name = (names or {}).get(stem) or emoji_name(stem)
        rng = random.Random(f"{seed}:{stem}")
        fills = _fill_colors(root)
        color = rng.choice(fills) if fills else None
        target_name = rng.choice(sorted(TARGET_COLORS))
        target_value = target_name if colors == "release" else TARGET_COLORS[target_name]
        for subtask in SUBTASKS:
            if subtask in ("change_color", "set_contour") and color is None:
                continue
            answer = answer_for(svg, subtask, color, target_value)
            if answer is None:
                continue
            query = build_prompt(subtask, name, svg, color, target_name)
            cases.append(EditCase(stem, subtask, query, answer))
    return cases


def write_release(cases: Iterable[EditCase], out: Path) -> int:
    """Write cases in the official release layout (``<n>_<Task>/{query,answer}/<id>``)."""
    count = 0
    for case in cases:
        folder = out / SUBTASKS[case.subtask]
        (folder / "query").mkdir(parents=True, exist_ok=True)
        (folder / "answer").mkdir(parents=True, exist_ok=True)
        (folder / "query" / f"{case.case_id}.txt").write_text(case.query, encoding="utf-8")
        (folder / "answer" / f"{case.case_id}.svg").write_text(case.answer, encoding="utf-8")
        count += 1
    return count

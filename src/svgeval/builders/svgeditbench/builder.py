"""Build SVGEditBench cases from any SVG files with the paper's rules.

Nishina & Matsui (CVPRW 2024), Sec. 3.3 and supplementary Sec. 6: for Change Color and Set Contour
a fill colour is drawn at random from the ``fill`` attributes of the SVG, and Change Color's target
colour from red, green, blue, yellow, cyan, magenta, white and black. Answers change one attribute:

* change_color: every ``fill`` of the chosen colour becomes the target colour;
* set_contour: those elements get ``stroke="black" stroke-width="1"``;
* compression: the answer is the input itself (the metric is length ratio plus MSE);
* upside_down: the root gets ``transform="translate(0,H) scale(1,-1)"`` (H: viewBox height);
* transparency: the root gets ``opacity="0.5"``;
* crop_to_half: the viewBox width (and a ``width`` attribute, if any) is halved.

``colors="release"`` writes target colours by CSS name as the official release does (so "green" is
#008000); ``colors="paper"`` uses the hex values the paper lists (green #00FF00).
Draws are seeded per file (``random.Random(f"{seed}:{case id}")``), so a case does not depend on
which other files are in the folder.

Icon sets other than Twemoji break the paper's tacit assumptions, so every case is checked:

* colours are compared as colours (:mod:`svgeval.svg.colors`): ``#FFF``, ``#ffffff`` and
  ``white`` are one fill colour, all recoloured together, and the target is never the source;
* the input and the answer must render, and every answer except compression's must look
  different from the input (72 px renders, as the task scores them, in the isolated renderer,
  compared in blocks of :data:`POOLING` pixels): flipping a symmetric icon, recolouring a
  hidden shape or outlining an already outlined one is not an edit;
* an icon named by emoji code points this Python cannot name is left out rather than named
  by its raw code points (see :mod:`svgeval.builders.svgeditbench.emoji_names`).

What is left out is recorded with its reason in :attr:`Build.skipped`.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np
from lxml import etree

from svgeval.builders.render_checks import generator_renderer, visibly_different
from svgeval.builders.skips import SkipLog
from svgeval.builders.svg_files import svg_element_text
from svgeval.builders.svgeditbench.emoji_names import UNNAMED, emoji_name
from svgeval.render.isolated import Renderer
from svgeval.render.picture import FloatImage, RenderFailure
from svgeval.svg.colors import parse_color, same_color
from svgeval.svg.refusals import SvgRejected
from svgeval.svg.sanitize import check_svg
from svgeval.svg.viewbox import view_box
from svgeval.tasks.svgeditbench.prompts import SUBTASKS, build_prompt
from svgeval.tasks.svgeditbench.task import RENDER

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
COLOR_SUBTASKS = ("change_color", "set_contour")
_WIDTH = re.compile(r"(\d*\.?\d+)(px)?")
POOLING = 3
"""Renders are compared in blocks of this many pixels a side (72 px -> 24 x 24 blocks).

Anti-aliasing alone moves single pixels by up to about 0.18: CairoSVG draws a rounded square
and its mirror image with slightly different edges, and a recolour of a shape hidden under
others shows only in its anti-aliased fringe. Averaged over blocks this noise fades, while a
changed shape, however faint its new colour, still changes whole blocks."""


@dataclass(frozen=True)
class EditCase:
    """One SVGEditBench case: the query text and the answer SVG."""

    case_id: str
    subtask: str
    query: str
    answer: str


@dataclass
class Build:
    """The cases built from a folder and what was left out (per icon or per case)."""

    cases: list[EditCase] = field(default_factory=list)
    skipped: SkipLog = field(default_factory=SkipLog)


def _fill_colors(root: etree._Element) -> list[str]:
    """Distinct fill colours in document order, each as first written; colours, not strings."""
    seen: list[str] = []
    for element in root.iter():
        fill = element.get("fill") if isinstance(element.tag, str) else None
        if parse_color(fill) is not None and not any(same_color(fill, s) for s in seen):
            seen.append(str(fill))
    return seen


def _number(value: float) -> str:
    return f"{value:g}"


def answer_for(svg: str, subtask: str, color: str | None, target: str | None) -> str | None:
    """The answer SVG for ``subtask``, or None when the rule cannot apply to this SVG."""
    if subtask == "compression":
        return svg
    root = etree.fromstring(check_svg(svg))
    if subtask in COLOR_SUBTASKS:
        for element in root.iter():
            if isinstance(element.tag, str) and same_color(element.get("fill"), color):
                if subtask == "change_color":
                    element.set("fill", str(target))
                else:
                    element.set("stroke", "black")
                    element.set("stroke-width", "1")
    elif subtask in ("upside_down", "crop_to_half"):
        box = view_box(root)
        if box is None:
            return None
        if subtask == "upside_down":
            root.set("transform", f"translate(0,{_number(2 * box.y + box.height)}) scale(1,-1)")
        else:
            halved = (box.x, box.y, box.width / 2, box.height)
            root.set("viewBox", " ".join(_number(v) for v in halved))
            width = _WIDTH.fullmatch(root.get("width", ""))
            if width is not None:
                root.set("width", _number(float(width.group(1)) / 2) + (width.group(2) or ""))
    elif subtask == "transparency":
        root.set("opacity", "0.5")
    return str(etree.tostring(root, encoding="unicode"))


def _pooled(image: FloatImage) -> FloatImage:
    """Mean of every ``POOLING`` x ``POOLING`` block of an (H, W, C) image."""
    height, width, channels = image.shape
    blocks = image.reshape(height // POOLING, POOLING, width // POOLING, POOLING, channels)
    return np.asarray(blocks.mean(axis=(1, 3)), dtype=np.float64)


def _edits(source: FloatImage, answer: FloatImage) -> bool:
    """True when the answer visibly changes the source, block by block (see ``POOLING``)."""
    return visibly_different(_pooled(source), _pooled(answer))


def _target_name(rng: random.Random, color: str | None, colors: ColorStyle) -> str:
    """A target colour name whose written value is not the source colour."""
    return rng.choice(
        [name for name in sorted(TARGET_COLORS) if not same_color(_written(name, colors), color)]
    )


def _written(target_name: str, colors: ColorStyle) -> str:
    """How the answer writes a target colour: its CSS name (release) or the paper's hex."""
    return target_name if colors == "release" else TARGET_COLORS[target_name]


def _read_icon(path: Path) -> tuple[str | None, str]:
    """The ``<svg>`` element of a file, or None and why it cannot be used."""
    try:
        svg = svg_element_text(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        return None, "not UTF-8"
    if svg is None:
        return None, "no single <svg> element"
    try:
        check_svg(svg)
    except SvgRejected as error:
        return None, f"refused by the safety checks ({error.reason})"
    return svg, ""


class _IconBuilder:
    """Makes the six cases of one icon, checking each answer by rendering it."""

    def __init__(self, build: Build, renderer: Renderer, colors: ColorStyle) -> None:
        self.build, self.renderer, self.colors = build, renderer, colors

    def add(self, stem: str, name: str, svg: str, seed: int) -> None:
        drawn = self.renderer.render(svg, RENDER)
        if isinstance(drawn, RenderFailure):
            self.build.skipped.add(stem, f"does not render ({drawn.tag})")
            return
        source = drawn.floats
        rng = random.Random(f"{seed}:{stem}")
        fills = _fill_colors(etree.fromstring(check_svg(svg)))
        color = rng.choice(fills) if fills else None
        target_name = _target_name(rng, color, self.colors)
        for subtask in SUBTASKS:
            if subtask in COLOR_SUBTASKS and color is None:
                self.build.skipped.add(stem, "no fill colour", subtask)
                continue
            answer = answer_for(svg, subtask, color, _written(target_name, self.colors))
            problem = self._problem(answer, subtask, source)
            if problem:
                self.build.skipped.add(stem, problem, subtask)
                continue
            query = build_prompt(subtask, name, svg, color, target_name)
            self.build.cases.append(EditCase(stem, subtask, query, str(answer)))

    def _problem(self, answer: str | None, subtask: str, source: FloatImage) -> str:
        """Why ``answer`` is no case ("" when it is one)."""
        if answer is None:
            return "no viewBox or width/height"
        if subtask == "compression":
            return ""
        rendered = self.renderer.render(answer, RENDER)
        if isinstance(rendered, RenderFailure):
            return "the answer does not render"
        if not _edits(source, rendered.floats):
            return "the edit does not change the render"
        return ""


def build_benchmark(
    svg_files: Iterable[Path],
    *,
    seed: int = 0,
    colors: ColorStyle = "release",
    names: dict[str, str] | None = None,
    renderer: Renderer | None = None,
) -> Build:
    """All six subtasks for every usable SVG file, and what was left out and why.

    ``names`` maps a file stem to the name used in the prompt (default: :func:`emoji_name`).
    ``renderer`` checks the renders; by default a pool with the generators' short time limit.
    """
    build = Build()
    with generator_renderer(renderer) as pool:
        icons = _IconBuilder(build, pool, colors)
        for path in sorted(svg_files):
            svg, problem = _read_icon(path)
            name = (names or {}).get(path.stem) or emoji_name(path.stem)
            if svg is None:
                build.skipped.add(path.stem, problem)
            elif not name:
                build.skipped.add(path.stem, UNNAMED)
            else:
                icons.add(path.stem, name, svg, seed)
    return build


def build_cases(
    svg_files: Iterable[Path],
    *,
    seed: int = 0,
    colors: ColorStyle = "release",
    names: dict[str, str] | None = None,
) -> list[EditCase]:
    """The cases of :func:`build_benchmark`, without the record of what was left out."""
    return build_benchmark(svg_files, seed=seed, colors=colors, names=names).cases


def write_release(cases: Iterable[EditCase], out: Path) -> int:
    """Write cases in the official release layout (``<n>_<Task>/{query,answer}/<id>``).

    Every subtask folder is made, even one without cases, so that the result always has the
    release's layout and ``svgeval run svgeditbench --data`` accepts it.
    """
    for name in SUBTASKS.values():
        for part in ("query", "answer"):
            (out / name / part).mkdir(parents=True, exist_ok=True)
    count = 0
    for case in cases:
        folder = out / SUBTASKS[case.subtask]
        (folder / "query" / f"{case.case_id}.txt").write_text(case.query, encoding="utf-8")
        (folder / "answer" / f"{case.case_id}.svg").write_text(case.answer, encoding="utf-8")
        count += 1
    return count

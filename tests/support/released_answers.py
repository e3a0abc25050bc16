"""The test set on which issue 27 ran the released scorers beside svgeval, rebuilt here.

Real SVGenius icons (from ``../shared/data/svgenius``) answered in 16 kinds: the issue's 15
(identical, recoloured, shifted, truncated, empty, broken XML, no SVG, fenced, two SVGs, zoomed
viewBox, zero size, DOCTYPE entity, prose around the SVG, off-canvas, unfinished tag) and
``pt_no_viewbox`` (sized in pt, no viewBox: its size depends on the dpi). Deterministic: icon
``i`` is answered in kind ``KINDS[i % 16]``, as the issue-27 harness (``testset.py``) built the
answers whose released scores the tests record.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from support.shared_paths import shared_release
from svgeval.render.isolated import Renderer
from svgeval.tasks.base import BatchItem, Sample, Task
from svgeval.tasks.outcome import FailureKind, Outcome

KINDS = (
    "identical", "recoloured", "shifted", "truncated", "empty", "broken_xml", "no_svg", "fenced",
    "two_svgs", "zoomed_viewbox", "zero_size", "doctype_entity", "prose_around", "off_canvas",
    "unfinished_tag", "pt_no_viewbox",
)
_COLOUR = re.compile(r"#([0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b")
_ROOT = re.compile(r"<svg\b[^>]*>", re.DOTALL)


def require_svgenius_models() -> None:
    """Skip unless transformers and the SVGenius release (the icons the released-model checks
    answer) are here."""
    pytest.importorskip("transformers")
    if not (shared_release("svgenius") / "src").is_dir():
        pytest.skip("needs ../shared/data/svgenius")


def svgenius_items(n: int) -> list[tuple[str, str]]:
    """``n`` SVGenius (icon SVG, caption) pairs, one per tier in turn (easy, medium, hard), item
    ``7 i`` of each tier's understanding results at round ``i``."""
    root = shared_release("svgenius") / "src"
    tiers = {tier: json.loads((root / f"tasks/understanding/{tier}_generation_results.json")
                              .read_text(encoding="utf-8")) for tier in ("easy", "medium", "hard")}
    items: list[tuple[str, str]] = []
    round_ = 0
    while len(items) < n:
        for tier, results in tiers.items():
            item = results[(round_ * 7) % len(results)]
            png = root / "data" / tier / "process" / Path(item["image_path"]).name
            items.append((png.with_suffix(".svg").read_text(encoding="utf-8").strip(),
                          str(item["caption"])))
            if len(items) == n:
                break
        round_ += 1
    return items


def svgenius_icons(n: int) -> list[str]:
    """The icon SVGs of :func:`svgenius_items`."""
    return [svg for svg, _ in svgenius_items(n)]


def _canvas(svg: str) -> tuple[float, float, float, float]:
    root = _ROOT.search(svg)
    assert root is not None
    box = re.search(r'viewBox="([^"]+)"', root.group(0))
    if box:
        x, y, w, h = (float(v) for v in re.split(r"[\s,]+", box.group(1).strip()))
        return x, y, w, h
    width = re.search(r'width="([\d.]+)', root.group(0))
    height = re.search(r'height="([\d.]+)', root.group(0))
    assert width is not None and height is not None
    return 0.0, 0.0, float(width.group(1)), float(height.group(1))


def _split(svg: str) -> tuple[str, str, str]:
    root = _ROOT.search(svg)
    assert root is not None
    end = svg.rfind("</svg>")
    return svg[: root.end()], svg[root.end() : end], svg[end:]


def _set_attr(tag: str, name: str, value: str | None) -> str:
    tag = re.sub(rf'\s{name}="[^"]*"', "", tag)
    if value is None or tag.endswith("/>"):
        return tag
    return tag[:-1].rstrip("/") + f' {name}="{value}">'


def _wrap(svg: str, transform: str) -> str:
    head, inner, tail = _split(svg)
    return f'{head}<g transform="{transform}">{inner}</g>{tail}'


def _recolour(svg: str) -> str:
    def swap(match: re.Match[str]) -> str:
        h = match.group(1)
        h = "".join(c * 2 for c in h) if len(h) == 3 else h
        r, g, b = h[0:2], h[2:4], h[4:6]
        return f"#{g}{b}{r}" if (g, b, r) != (r, g, b) else "#d62728"

    out = _COLOUR.sub(swap, svg)
    out = re.sub(r'(fill|stroke)="(?!#|none|url|currentColor)([a-zA-Z]+)"', r'\1="#d62728"', out)
    if out == svg:
        head, inner, tail = _split(svg)
        out = head[:-1] + ' fill="#d62728">' + inner + tail
    return out


def edited(edit: str, svg: str) -> str:
    """The SArena editing ground truth of the issue-27 run: ``svg`` flipped, recoloured
    (``color_simple``) or translated."""
    _, _, w, h = _canvas(svg)
    if edit == "flip":
        return _wrap(svg, f"translate({w:g} 0) scale(-1 1)")
    if edit == "color_simple":
        return _recolour(svg)
    return _wrap(svg, f"translate({w * 0.2:g} {h * 0.1:g})")


def make_answer(kind: str, svg: str) -> str:
    """The answer of ``kind`` to the reference ``svg``."""
    x, y, w, h = _canvas(svg)
    head, inner, tail = _split(svg)
    answers = {
        "identical": lambda: svg,
        "recoloured": lambda: _recolour(svg),
        "shifted": lambda: _wrap(svg, f"translate({w * 0.15:g} {h * 0.1:g})"),
        "truncated": lambda: svg[: svg.rfind(">", 0, int(len(svg) * 0.6)) + 1],
        "empty": lambda: "",
        "broken_xml": lambda: (svg.replace("/>", ">", 1) if "/>" in svg
                               else svg.replace("</path>", "</pth>", 1)),
        "no_svg": lambda: "I'm sorry, but I can't produce SVG code for this request.",
        "fenced": lambda: f"```svg\n{svg}\n```",
        "two_svgs": lambda: (f"Here is a first draft:\n{_wrap(svg, f'translate({w * 0.3:g} 0)')}"
                             f"\nAnd the final version:\n{svg}"),
        "zoomed_viewbox": lambda: (_set_attr(head, "viewBox", f"{x:g} {y:g} {w / 2:g} {h / 2:g}")
                                   + inner + tail),
        "zero_size": lambda: _set_attr(_set_attr(head, "width", "0"), "height", "0") + inner + tail,
        "doctype_entity": lambda: _doctype_entity(svg),
        "prose_around": lambda: ("Sure! Here is the SVG code for the icon:\n\n" + svg
                                 + "\n\nIt uses simple shapes; let me know if you want any changes."),
        "off_canvas": lambda: _wrap(svg, f"translate({w * 10:g} {h * 10:g})"),
        "unfinished_tag": lambda: svg[: max(svg.rfind(tag) for tag in (
            "<path", "<circle", "<rect", "<polygon", "<ellipse")) + 18],
        "pt_no_viewbox": lambda: (
            _set_attr(_set_attr(_set_attr(head, "viewBox", None), "width", f"{w:g}pt"),
                      "height", f"{h:g}pt")
            + _wrap(svg, f"translate({-x:g} {-y:g})")[len(head):]),
    }
    return answers[kind]()


def _doctype_entity(svg: str) -> str:
    head, inner, tail = _split(svg)
    entity = '<?xml version="1.0"?>\n<!DOCTYPE svg [<!ENTITY accent "#d62728">]>\n'
    body = re.sub(r'fill="[^"]*"', 'fill="&accent;"', svg, count=1)
    if body == svg:
        body = head[:-1] + ' fill="&accent;">' + inner + tail
    return entity + body


def answered(n: int, prefix: str) -> dict[str, tuple[str, str, str]]:
    """Sample id (``<prefix><i>``) -> (kind, reference SVG, answer) for ``n`` icons."""
    icons = svgenius_icons(n)
    return {f"{prefix}{i}": (KINDS[i % 16], svg, make_answer(KINDS[i % 16], svg))
            for i, svg in enumerate(icons)}


TWEMOJI = ("1f49c", "1f536", "1f7e0", "1f7e8", "1f9e1", "2b50", "1f199", "1f3bc", "1f416", "1f42a",
           "1f521", "1f60c", "23e9", "24c2", "265f", "2728")
"""The 16 Twemoji targets of the SVGEditBench V2 run, target ``i`` answered in kind ``KINDS[i]``."""


def twemoji_answered() -> dict[str, tuple[str, str, str]]:
    """Triplet id (``0000``..``0015``) -> (kind, target SVG, answer), the targets read from
    SVGEditBench's Twemoji answers in ``../shared/data/svgeditbench``."""
    folder = shared_release("svgeditbench") / "1_ChangeColor" / "answer"
    targets = [(folder / f"{code}.svg").read_text(encoding="utf-8").strip() for code in TWEMOJI]
    return {f"{i:04d}": (KINDS[i], svg, make_answer(KINDS[i], svg))
            for i, svg in enumerate(targets)}


def stage_item(sample: Sample, outcome: Outcome) -> BatchItem:
    """``sample`` as svgeval's batched metric stage draws it after ``outcome``: its answer, or a
    blank canvas for a failure (kept in the paper's reading when it failed to render)."""
    if outcome.failure is None and outcome.extracted is not None:
        return BatchItem(sample, outcome.extracted, in_paper_reading=True)
    render_failure = outcome.failure is not None and outcome.failure.kind == FailureKind.RENDER
    return BatchItem(sample, None, in_paper_reading=render_failure)


def reference_batch(task: Task, target: Callable[..., Any], renderer: Renderer, n: int,
                    group: str) -> list[BatchItem]:
    """Icon ``i`` of :func:`svgenius_items` (``target(reference=..., caption=...)``, the
    suite's target class) answered in kind ``KINDS[i]``, scored by ``task`` and drawn as the
    batched metric stage draws it."""
    items = []
    for i, (svg, caption) in enumerate(svgenius_items(n)):
        sample = Sample(str(i), group, [], svg, target=target(reference=svg,
                                                               caption=caption.strip()))
        items.append(stage_item(sample, task.score(sample, make_answer(KINDS[i], svg), renderer)))
    return items

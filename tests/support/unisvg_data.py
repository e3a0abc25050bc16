"""The UniSVG rows of issue 27's research run, rebuilt: 30 generation rows (SVGenius icons
answered in every kind of ``released_answers.KINDS`` but ``empty``), 22 understanding rows as the
run's harness wrote them, and 18 free-text rows (SVGenius captions, 3 per free-text type). Row
``i`` of :func:`answered_rows` then :func:`free_text_rows` is row ``i`` of the run (0-69)."""

from __future__ import annotations

from typing import Any

from support.released_answers import KINDS, make_answer, svgenius_icons, svgenius_items
from svgeval.tasks.unisvg.data import UniSvgRow

GENERATION_KINDS = [kind for kind in KINDS if kind != "empty"]
# (type, ground truth, l2-category metadata, answer), as the research run's harness wrote them
UNDERSTANDING: list[tuple[str, str, dict[str, Any], str]] = [
    ("CSVGUN_color", "The colors are red and blue.",
     {"keywords": {"colors": {"colors": ["red", "blue", "white"]}}}, "It uses red and blue."),
    ("CSVGUN_color", "The colors are green.",
     {"keywords": {"colors": {"colors": ["green", "light blue"]}}}, "green and light blue"),
    ("CSVGUN_color", "White only.", {"keywords": {"colors": {"colors": ["white"]}}}, "white"),
    ("CSVGUN_color", "Black.", {"colors": {"colors": ["black"]}}, "black"),
    ("CSVGUN_color", "Orange.", {"keywords": {"colors": {"colors": ["orange"]}}}, ""),
    ("ISVGUN_color", "Yellow and black.",
     {"keywords": {"colors": {"colors": ["yellow", "black"]}}}, "yellow"),
    ("ISVGUN_color", "Purple.", {"keywords": {"colors": {"colors": ["purple", "#ff0000"]}}},
     "purple and #ff0000"),
    ("CSVGUN_category", "An animal.", {"keywords": {"category": ["animal", "nature"]}},
     "This is an Animal icon."),
    ("CSVGUN_category", "Transport.", {"keywords": {"category": "transport"}}, "a bus"),
    ("CSVGUN_category", "Food.", {"keywords": {"category": ["food"]}}, ""),
    ("ISVGUN_category", "Weather.", {"keywords": {"category": ["weather"]}}, "a weather icon"),
    ("ISVGUN_category", "Sports.", {"keywords": {"category": ["sports"]}}, "music"),
    ("CSVGUN_shape", "It contains 2 paths and 1 circle.", {}, "2 paths and 1 circle"),
    ("CSVGUN_shape", "It contains 3 rects.", {}, "3 paths"),
    ("CSVGUN_shape", "There are no basic shapes.", {}, ""),
    ("CSVGUN_shape", "It contains 4 paths.", {}, ""),
    ("CSVGUN_size", "The width is 200 and the height is 100.", {}, "200 by 100"),
    ("CSVGUN_size", "Width 24.5, height 24.", {}, "24 and 24"),
    ("CSVGUN_size", "Width 64, height 64.", {}, ""),
    ("CSVGUN_transform", "translate(10 5) then rotate(45).", {},
     "It applies translate and rotate."),
    ("CSVGUN_transform", "No transformations are applied.", {}, ""),
    ("CSVGUN_transform", "scale(2) and matrix(1 0 0 1 0 0).", {}, "scaleX only"),
]
FREE_TEXT_TYPES = ("CSVGUN_usage", "CSVGUN_description", "ISVGUN_usage", "ISVGUN_description",
                   "CSVGUN_rect", "CSVGUN_circle")


def answered_rows() -> list[tuple[UniSvgRow, str]]:
    """Rows 0-51 and their answers: 0-14 ISVGEN and 15-29 TSVGEN (icon ``i`` answered in kind
    ``GENERATION_KINDS[i % 15]``), then the rows of ``UNDERSTANDING``."""
    icons = svgenius_icons(30)
    rows = [(UniSvgRow(index=str(i), category="ISVGEN" if i < 15 else "TSVGEN", question="q",
                       answer=svg, pngs=[b"png"]), make_answer(GENERATION_KINDS[i % 15], svg))
            for i, svg in enumerate(icons)]
    rows += [(UniSvgRow(index=str(30 + i), category=kind, question="q", answer=truth,
                        metadata=meta, pngs=[b"png"]), answer)
             for i, (kind, truth, meta, answer) in enumerate(UNDERSTANDING)]
    return rows


def free_text_rows() -> list[tuple[UniSvgRow, str]]:
    """Rows 52-69 and their answers: per type of ``FREE_TEXT_TYPES``, three SVGenius captions
    (items 30-47 of ``svgenius_items``) answered empty, by a paraphrase and in upper case."""
    captions = [caption for _, caption in svgenius_items(48)[30:]]
    rows = []
    for n, kind in enumerate(FREE_TEXT_TYPES):
        for m, truth in enumerate(captions[3 * n:3 * n + 3]):
            answer = ["", f"It shows {truth.split(' ', 2)[-1]}", f"  {truth.upper()} "][m]
            rows.append((UniSvgRow(index=str(52 + 3 * n + m), category=kind, question="q",
                                   answer=truth, pngs=[b"png"]), answer))
    return rows

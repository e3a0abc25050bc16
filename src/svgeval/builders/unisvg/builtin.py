"""UniSVG's built-in sample: VLMEvalKit's ``UniSVG.tsv`` written from svgeval's demo icons.

Every one of the 15 question types, with svgeval's own questions and answers: four image-to-SVG
rows (the icon rendered at 128 px, base64 PNG) and four text-to-SVG rows (a caption written
here), whose ground truth is the icon's SVG, then two rows of each understanding type. The
answers of the rule-scored types are derived from the icons (their shape counts, a size and
transforms set here), the colours and categories go into ``l2-category`` as the release keeps
them, and the ``ISVGUN_*`` rows name the image-to-SVG row whose picture they show by its
``index`` (VLMEvalKit's rule for a repeated image). The same file serves ``unisvg`` and its
three parts.
"""

from __future__ import annotations

import base64
import csv
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from svgeval.messages import png_bytes
from svgeval.render.cairo import RenderSpec, render_svg_uint8
from svgeval.svg.demo_corpus import DEMO_ICONS, demo_svg
from svgeval.tasks.builtin import BUILTIN_SAMPLES, BuiltinSample
from svgeval.tasks.unisvg.data import FILE
from svgeval.tasks.unisvg.rules import SHAPES

COLUMNS = ("index", "image", "question", "answer", "category", "l2-category")
"""The columns of VLMEvalKit's TSV, in its order."""
PICTURE_SIZE = 128
"""Side of the image-to-SVG pictures in pixels."""
ISVGEN = ("sun", "house", "tree", "heart")
"""The icons shown as pictures; the ``ISVGUN_*`` rows point at their rows."""
TSVGEN = {
    "star": "A five-pointed orange star with a pale yellow disc at its centre.",
    "moon": "A yellow crescent moon on a round dark grey night sky.",
    "fish": "A blue fish facing left, with a darker blue tail and one black eye.",
    "cup": "A light grey mug with a handle on the right and a brown band of coffee.",
}
"""Icon -> the caption asked for (text-to-SVG)."""
COLOURS = {"flag": ["gray", "blue", "white"], "traffic light": ["black", "red", "yellow", "green"],
           "sun": ["orange", "yellow"], "tree": ["brown", "green"]}
"""Icon -> its colours as ``keywords.colors.colors`` (white is never scored, as released)."""
CATEGORIES = {"mushroom": ["food", "nature"], "balloon": ["party"], "house": ["building"],
              "heart": ["emotion"]}
"""Icon -> its categories as ``keywords.category``."""
TEXTS: Mapping[str, Sequence[tuple[str, str, str]]] = {
    "CSVGUN_usage": (
        ("flag", "What could this SVG icon be used for?",
         "As a marker on a map, or to show the finish of a race."),
        ("balloon", "What could this SVG icon be used for?",
         "To decorate a birthday card or a party invitation."),
    ),
    "CSVGUN_description": (
        ("moon", "Describe the picture this SVG draws.",
         "A yellow crescent moon in front of a dark round night sky."),
        ("mushroom", "Describe the picture this SVG draws.",
         "A mushroom with a red cap dotted with white spots on a short pale stem."),
    ),
    "ISVGUN_usage": (
        ("sun", "What could this icon be used for?",
         "To show sunny weather in a forecast or a brightness setting."),
        ("heart", "What could this icon be used for?",
         "As a like button or to mark a favourite item."),
    ),
    "ISVGUN_description": (
        ("house", "Describe this icon.",
         "A small brown house with a red roof, a dark door and two light blue windows."),
        ("tree", "Describe this icon.",
         "A green pine tree with two layers of branches on a brown trunk."),
    ),
    "CSVGUN_rect": (
        ("house", "Describe the rect elements of this SVG.",
         "Three rectangles: a dark brown door in the middle and two light blue windows."),
        ("traffic light", "Describe the rect elements of this SVG.",
         "One tall dark grey rectangle with rounded corners, the body of the light."),
    ),
    "CSVGUN_circle": (
        ("traffic light", "Describe the circle elements of this SVG.",
         "Three circles stacked in a column: red at the top, yellow, and green at the bottom."),
        ("mushroom", "Describe the circle elements of this SVG.",
         "Two white circles of different sizes, the spots on the mushroom's cap."),
    ),
}
"""Free-text type -> (icon, question, reference answer) of its rows."""
SIZES = {"cup": (72, 64), "star": (48, 40)}
"""Icon -> the ``width`` and ``height`` given to it for the size questions."""
TRANSFORMS = {"tree": ("translate(2 1) rotate(8 18 18)", "It applies translate and rotate."),
              "fish": ("scale(0.8) translate(4 4)", "It applies scale, then translate.")}
"""Icon -> the transform set on its drawing and the reference answer."""
_HEAD = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 36 36">'


def tsv_row(index: int, category: str, question: str, answer: str,
            metadata: Mapping[str, Any] | None = None, image: str = "") -> dict[str, str]:
    """One row of the TSV: ``image`` is base64, another row's index, or empty."""
    return {"index": str(index), "image": image, "question": question, "answer": answer,
            "category": category, "l2-category": json.dumps(metadata or {})}


def write_tsv(path: Path, rows: Sequence[Mapping[str, str]]) -> Path:
    """Write ``rows`` as VLMEvalKit's tab-separated file at ``path``."""
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS, delimiter="\t")
        writer.writeheader()
        writer.writerows(rows)
    return path


def picture(name: str) -> str:
    """The demo icon ``name`` rendered on white, as base64 PNG."""
    pixels = render_svg_uint8(demo_svg(name), RenderSpec.square(PICTURE_SIZE))
    return base64.b64encode(png_bytes(pixels)).decode("ascii")


def code_question(question: str, svg: str) -> str:
    """A question about SVG code: the question, then the code."""
    return f"{question}\n{svg}"


def shape_answer(svg: str) -> str:
    """How many elements of each basic shape ``svg`` holds, in the words the shape rule reads
    (``2 paths and 3 rects``)."""
    counts = {shape: len(re.findall(rf"<{shape}\b", svg)) for shape in SHAPES}
    parts = [f"{n} {shape}{'s' if n > 1 else ''}" for shape, n in counts.items() if n]
    return f"It contains {' and '.join(parts)}."


def generation_rows(start: int) -> list[dict[str, str]]:
    """The image-to-SVG rows (from ``start``), then the text-to-SVG rows."""
    rows = [tsv_row(start + i, "ISVGEN", "Write the SVG code that draws this image.",
                    demo_svg(name), image=picture(name)) for i, name in enumerate(ISVGEN)]
    rows += [tsv_row(start + len(rows) + i, "TSVGEN", f"Write SVG code for: {caption}",
                     demo_svg(name)) for i, (name, caption) in enumerate(TSVGEN.items())]
    return rows


def shown(name: str) -> str:
    """The ``image`` cell of a row showing ``name``: the index of its image-to-SVG row."""
    return str(ISVGEN.index(name))


def keyword_rows() -> list[tuple[str, str, str, dict[str, Any], str]]:
    """(type, question, answer, metadata, image cell) of the colour and category rows."""
    rows: list[tuple[str, str, str, dict[str, Any], str]] = []
    for name, colours in COLOURS.items():
        meta: dict[str, Any] = {"keywords": {"colors": {"colors": colours}}}
        answer = f"It is drawn in {', '.join(colours)}."
        if name in ISVGEN:
            rows.append(("ISVGUN_color", "Which colours does this icon use?", answer, meta,
                         shown(name)))
        else:
            rows.append(("CSVGUN_color", code_question("Which colours does this SVG use?",
                                                       demo_svg(name)), answer, meta, ""))
    for name, categories in CATEGORIES.items():
        meta = {"keywords": {"category": categories}}
        answer = f"It is an icon of a {name}."
        if name in ISVGEN:
            rows.append(("ISVGUN_category", "Which category does this icon belong to?", answer,
                         meta, shown(name)))
        else:
            rows.append(("CSVGUN_category", code_question(
                "Which category does this SVG icon belong to?", demo_svg(name)), answer, meta, ""))
    return rows


def code_rows() -> list[tuple[str, str, str]]:
    """(type, question, answer) of the shape, size and transform rows."""
    asked = "How many basic shapes of each kind does this SVG contain?"
    rows = [("CSVGUN_shape", code_question(asked, demo_svg(name)), shape_answer(demo_svg(name)))
            for name in ("house", "traffic light")]
    for name, (width, height) in SIZES.items():
        svg = _HEAD.replace("viewBox", f'width="{width}" height="{height}" viewBox')
        rows.append(("CSVGUN_size", code_question("What are the width and height of this SVG?",
                                                  f"{svg}{DEMO_ICONS[name]}</svg>"),
                     f"The width is {width} and the height is {height}."))
    for name, (transform, answer) in TRANSFORMS.items():
        svg = f'{_HEAD}<g transform="{transform}">{DEMO_ICONS[name]}</g></svg>'
        rows.append(("CSVGUN_transform", code_question(
            "Which transformations does this SVG apply?", svg), answer))
    return rows


def text_rows() -> list[tuple[str, str, str, str]]:
    """(type, question, answer, image cell) of the free-text rows."""
    rows = []
    for kind, items in TEXTS.items():
        for name, question, answer in items:
            if kind.startswith("ISVGUN"):
                rows.append((kind, question, answer, shown(name)))
            else:
                rows.append((kind, code_question(question, demo_svg(name)), answer, ""))
    return rows


def understanding_rows(start: int) -> list[dict[str, str]]:
    """Two rows of each understanding type, numbered from ``start``."""
    found: list[tuple[str, str, str, dict[str, Any], str]] = keyword_rows()
    found += [(kind, question, answer, {}, "") for kind, question, answer in code_rows()]
    found += [(kind, question, answer, {}, image) for kind, question, answer, image in text_rows()]
    return [tsv_row(start + i, kind, question, answer, meta, image)
            for i, (kind, question, answer, meta, image) in enumerate(found)]


def write(folder: Path) -> None:
    """``folder/UniSVG.tsv``: every question type, generation rows first."""
    rows = generation_rows(0)
    write_tsv(folder / FILE, rows + understanding_rows(len(rows)))


SAMPLE = BuiltinSample(
    folder="unisvg", write=write,
    provenance="svgeval's demo icons with svgeval's own questions: 8 generation rows and 2 rows "
    "of each of the 13 understanding types",
)
for _task in ("unisvg", "unisvg-img2svg", "unisvg-text2svg", "unisvg-understanding"):
    BUILTIN_SAMPLES.register(SAMPLE, name=_task)

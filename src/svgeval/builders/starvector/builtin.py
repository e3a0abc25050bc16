"""StarVector SVG-Bench's built-in sample: svgeval's demo icons in two datasets' hub layouts.

``svg-stack/data/test-00000-of-00001.parquet`` holds four icons
(:mod:`svgeval.svg.demo_corpus`) in the image-to-SVG datasets' columns (``Filename``, ``Svg``);
``text2svg-stack/data/test-00000-of-00001.parquet`` holds six others with two captions of ours
each, in ``text2svg-stack``'s caption columns (``caption_blip2``: short, ``caption_llava``:
longer). ``starvector-img2svg`` reads the first, ``starvector-text2svg`` the second; the groups
are the tasks' default datasets, ``svg-stack`` and ``text2svg-stack``.

:func:`write_rows` is what every writer of SVG-Bench rows shares (the tests' among them).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from svgeval.svg.demo_corpus import demo_svg
from svgeval.tasks.builtin import BUILTIN_SAMPLES, BuiltinSample

IMAGE_DATASET = "svg-stack"
TEXT_DATASET = "text2svg-stack"
PARQUET = "data/test-00000-of-00001.parquet"
IMAGE_ICONS = ("sun", "house", "heart", "moon")
"""The icons the image-to-SVG sample redraws."""
CAPTIONS: dict[str, tuple[str, str]] = {
    "mushroom": ("a red mushroom with white spots",
                 ("A cartoon mushroom with a wide red cap dotted with two white spots on a short "
                  "pale grey stem.")),
    "cup": ("a grey cup of coffee",
            ("A light grey mug seen from the side, with a handle on the right and a band of "
             "brown coffee near its rim.")),
    "fish": ("a blue fish",
             ("A blue fish facing left, with an oval body, a darker blue tail fin and a small "
              "black eye.")),
    "traffic light": ("a traffic light",
                      ("A dark grey traffic light standing upright with three round lamps: red "
                       "at the top, yellow in the middle and green at the bottom.")),
    "balloon": ("a red balloon on a string",
                ("A shiny red balloon with a small white highlight and a thin wavy grey string "
                 "hanging below it.")),
    "flag": ("a blue flag on a pole",
             ("A blue pennant with a notched end and a white dot, flying from a thin grey "
              "pole.")),
}
"""The text-to-SVG sample: icon -> (``caption_blip2``, ``caption_llava``), ours."""


def write_rows(path: Path, rows: Sequence[dict[str, Any]]) -> Path:
    """``rows`` (dicts keyed by the hub's columns) as a parquet file at ``path``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(list(rows)), path)
    return path


def filename(icon: str) -> str:
    """The ``Filename`` of a demo icon."""
    return icon.replace(" ", "-") + ".svg"


def write(folder: Path) -> None:
    """``folder/svg-stack`` and ``folder/text2svg-stack``, each in its dataset's hub layout."""
    write_rows(folder / IMAGE_DATASET / PARQUET,
               [{"Filename": filename(icon), "Svg": demo_svg(icon)} for icon in IMAGE_ICONS])
    write_rows(folder / TEXT_DATASET / PARQUET, [
        {"Filename": filename(icon), "Svg": demo_svg(icon), "caption_blip2": blip2,
         "caption_llava": llava}
        for icon, (blip2, llava) in CAPTIONS.items()])


SAMPLES = {
    "starvector-img2svg": BuiltinSample(
        folder="starvector", write=write, data=IMAGE_DATASET,
        provenance=f"{len(IMAGE_ICONS)} of svgeval's demo icons, in svg-stack's columns"),
    "starvector-text2svg": BuiltinSample(
        folder="starvector", write=write, data=TEXT_DATASET,
        provenance=f"{len(CAPTIONS)} of svgeval's demo icons with two captions of ours each, in "
                   "text2svg-stack's columns"),
}
for _task, _sample in SAMPLES.items():
    BUILTIN_SAMPLES.register(_sample, name=_task)

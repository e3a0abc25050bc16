"""SVG-Bench rows: the StarVector datasets on the Hugging Face hub, or a local parquet copy.

Every SVG-Bench dataset (the ``starvector`` collection "StarVector SVG Datasets (SVG-Bench)")
stores ``Filename`` (the sample id) and ``Svg`` (the SVG code) in ``train``/``val``/``test``
splits; the released loaders read those columns (``starvector/data/{iconsvg,emojisvg,fontsvg,
stacksvg}.py``). Text-to-SVG rows add captions: ``text2svg-stack`` has ``caption_blip2`` and
``caption_llava`` (``stacksvg.py``), ``FIGR-SVG`` has ``Caption`` and names its id ``Id``
(``figrsvg.py``).

``--data PATH`` takes a parquet file or a folder holding the hub layout
(``data/<split>-*.parquet``); without it the dataset ``starvector/<name>`` is loaded with
``datasets`` (cached by ``datasets``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel

from svgeval.tasks.common.rows import read_hub_split, read_parquet_tables, unique_ids
from svgeval.tasks.data_files import MalformedData
from svgeval.tasks.download import DataUnavailable

HUB_ORG = "starvector"
IMAGE_DATASETS = (
    "svg-stack", "svg-fonts", "svg-icons", "svg-emoji", "svg-diagrams", "svg-stack-simple",
    "svg-fonts-simple", "svg-icons-simple", "svg-emoji-simple",
)
"""The image-to-SVG datasets of the collection (README table "Datasets - SVG-Bench")."""
TEXT_DATASETS = ("text2svg-stack", "FIGR-SVG")
"""The text-to-SVG datasets (configs ``text2svg-stack.yaml``, ``text2svg-figr.yaml``)."""
CAPTION_COLUMNS = ("caption_blip2", "caption_llava", "Caption")


class BenchRow(BaseModel):
    """One row: its id, SVG and the captions it has (column -> text)."""

    id: str
    svg: str
    captions: dict[str, str] = {}
    """The caption columns the row has (possibly empty strings, as the release reads them)."""


def to_row(raw: dict[str, Any], where: str) -> BenchRow:
    """A row from a raw record; :class:`MalformedData` naming ``where`` when a column is off."""
    sample_id = raw.get("Filename", raw.get("Id"))
    svg = raw.get("Svg")
    if sample_id is None or not isinstance(svg, str):
        raise MalformedData(f"{where}: needs a Filename (or Id) and an Svg string")
    captions = {c: raw[c] for c in CAPTION_COLUMNS if isinstance(raw.get(c), str)}
    return BenchRow(id=str(sample_id), svg=svg, captions=captions)


def read_parquet_rows(path: Path, split: str) -> list[BenchRow]:
    """The rows of a local parquet file, or of the ``<split>-*.parquet`` files under a folder."""
    rows = []
    for file, table in read_parquet_tables(path, split):
        rows += [to_row(raw, f"{file}: row {i}") for i, raw in enumerate(table.to_pylist())]
    return rows


def read_hub_rows(dataset: str, split: str) -> list[BenchRow]:
    """The rows of ``starvector/<dataset>`` from the hub through ``datasets``."""
    hub_id = f"{HUB_ORG}/{dataset}"
    table = read_hub_split(hub_id, split)
    return [to_row(raw, f"{hub_id}[{split}] row {i}") for i, raw in enumerate(table)]


def load_rows(data: Path | None, dataset: str, split: str) -> list[BenchRow]:
    """The rows with unique ids (a repeat gets ``#n``); :class:`DataUnavailable` when none."""
    rows = read_parquet_rows(data, split) if data is not None else read_hub_rows(dataset, split)
    if not rows:
        raise DataUnavailable(f"{dataset} split {split!r} has no rows in {data or HUB_ORG}")
    ids = unique_ids([row.id for row in rows])
    return [row.model_copy(update={"id": i}) for row, i in zip(rows, ids)]

"""MMSVGBench rows and OmniSVG's FID reference pictures.

The bench (HF ``OmniSVG/MMSVGBench``, 4 groups x 150) is parquet under ``data/``: text-to-SVG
rows with ``text`` (the prompt) and ``type`` (``icon`` | ``illustration``), image-to-SVG rows
with an ``image`` (HF ``Image`` feature, ``{"bytes", "path"}``) and ``type``. The card is not
readable here, so columns are discovered: the task from ``task_type`` or the file name
(``text2svg*`` / ``image2svg*`` / ``img2svg*``), the prompt from the first of
:data:`TEXT_COLUMNS`, the picture from the first of :data:`IMAGE_COLUMNS` (the list OmniSVG's
``compute_fid.py:184`` tries), the id from ``id`` or ``<task>/<type>/<row>``. A row may carry an
``svg`` column (the MMSVG datasets' schema): it is what the ``oracle`` answers.

FID references (``compute_fid.py --mode hf``, its issue #39): the ``train`` split of
``OmniSVG/MMSVG-Icon`` / ``-Illustration``, of which a seeded 3 % sample is drawn
(:func:`~svgeval.metrics.frechet.sample_indices`). :func:`reference_pictures` yields them in
chunks, decoded when read (27,120 pictures of 896 px do not fit in memory at once).
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from svgeval.metrics.frechet import sample_indices
from svgeval.tasks.common.rows import unique_ids
from svgeval.tasks.data_files import MalformedData
from svgeval.tasks.download import DataUnavailable, hub_download

HUB_ID = "OmniSVG/MMSVGBench"
REFERENCE_HUB_IDS = {"icon": "OmniSVG/MMSVG-Icon", "illustration": "OmniSVG/MMSVG-Illustration"}
TEXT_COLUMNS = ("text", "description", "prompt")
IMAGE_COLUMNS = ("image", "png", "img")
PICTURE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".webp")
"""The files ``compute_fid.py`` collects from a folder (``os.walk``)."""
TASK_PREFIXES = {"text2svg": "text2svg", "image2svg": "img2svg", "img2svg": "img2svg"}

Rgba = NDArray[np.uint8]


@dataclass(frozen=True)
class BenchRow:
    """One bench row: id, group (``type``), prompt or picture (PNG/JPEG bytes), optional SVG."""

    id: str
    group: str
    text: str = ""
    picture: bytes = b""
    svg: str = ""


def _first(raw: dict[str, Any], columns: Sequence[str]) -> Any:
    return next((raw[c] for c in columns if raw.get(c) is not None), None)


def picture_bytes(value: Any) -> bytes | None:
    """The encoded bytes of an HF ``Image`` cell (``{"bytes", "path"}``) or of raw bytes."""
    if isinstance(value, dict):
        value = value.get("bytes")
    return bytes(value) if isinstance(value, (bytes, bytearray)) and value else None


def decode(data: bytes) -> Rgba:
    """An encoded picture as (H, W, 4) uint8 RGBA (PIL ``convert("RGBA")``)."""
    from PIL import Image

    with Image.open(io.BytesIO(data)) as opened:
        return np.asarray(opened.convert("RGBA"), np.uint8)


def task_of(raw: dict[str, Any], file: Path) -> str | None:
    """``text2svg`` or ``img2svg`` from the ``task_type`` column or the file's name."""
    for name in (str(raw.get("task_type") or ""), file.name):
        for prefix, task in TASK_PREFIXES.items():
            if name.lower().startswith(prefix):
                return task
    return None


def to_row(raw: dict[str, Any], task: str, index: int, where: str) -> BenchRow:
    """A row of ``task``; :class:`MalformedData` naming ``where`` and the columns it has."""
    group = str(raw.get("type") or "")
    wanted = TEXT_COLUMNS if task == "text2svg" else IMAGE_COLUMNS
    value = _first(raw, wanted)
    picture = picture_bytes(value) if task == "img2svg" else None
    if not group or value is None or (task == "img2svg" and picture is None):
        raise MalformedData(f"{where}: needs a type column and one of {', '.join(wanted)}; "
                            f"it has {', '.join(sorted(raw)) or 'no columns'}")
    sample_id = str(raw["id"]) if raw.get("id") is not None else f"{task}/{group}/{index}"
    svg = str(raw["svg"]) if isinstance(raw.get("svg"), str) else ""
    if task == "text2svg":
        return BenchRow(id=sample_id, group=group, text=str(value).strip(), svg=svg)
    return BenchRow(id=sample_id, group=group, picture=picture or b"", svg=svg)


def read_rows(path: Path, task: str) -> list[BenchRow]:
    """The rows of ``task`` in the parquet files under ``path`` (or the one file ``path``)."""
    import pyarrow.parquet as pq

    if not path.exists():
        raise DataUnavailable(f"--data {path}: no such file or folder")
    files = [path] if path.is_file() else sorted(path.rglob("*.parquet"))
    if not files:
        raise DataUnavailable(f"--data {path}: no .parquet file under it")
    rows: list[BenchRow] = []
    for file in files:
        try:
            records = pq.read_table(file).to_pylist()
        except Exception as error:  # noqa: BLE001 (pyarrow raises several kinds)
            raise MalformedData(f"{file}: not a readable parquet file ({error})") from None
        for i, raw in enumerate(records):
            if task_of(raw, file) == task:
                rows.append(to_row(raw, task, i, f"{file}: row {i}"))
    if not rows:
        raise DataUnavailable(f"--data {path}: no {task} rows (a task_type column or a file "
                              f"named {task}*.parquet / image2svg*.parquet)")
    ids = unique_ids([row.id for row in rows])
    return [BenchRow(i, r.group, r.text, r.picture, r.svg) for r, i in zip(rows, ids)]


def hub_folder(hub_id: str, patterns: Sequence[str] = ("*.parquet",)) -> Path:
    """The parquet files of a hub dataset, downloaded once into the hub's cache."""
    return hub_download(hub_id, patterns=patterns)


def load_rows(data: Path | None, task: str) -> list[BenchRow]:
    """The bench rows of ``task``: from ``--data`` or the cached hub copy."""
    return read_rows(data if data is not None else hub_folder(HUB_ID), task)


@dataclass(frozen=True)
class ReferenceSet:
    """Where a group's FID references come from, how many there are and which were sampled."""

    source: str
    total: int
    indices: list[int]
    """Indices of the sampled items among ``total`` (all of them without sampling)."""


def _parquet_images(files: Sequence[Path]) -> tuple[list[tuple[Path, int]], Any]:
    """Every (file, row) of the parquet ``files`` and a reader of one picture's bytes."""
    import pyarrow.parquet as pq

    places = [(f, i) for f in files for i in range(pq.ParquetFile(f).metadata.num_rows)]

    column: dict[Path, list[Any]] = {}

    def read(file: Path, row_index: int) -> bytes:
        if file not in column:  # indices are sorted: one shard's pictures at a time
            names = pq.ParquetFile(file).schema_arrow.names
            found = [c for c in IMAGE_COLUMNS if c in names]
            if not found:
                raise MalformedData(f"{file}: no picture column ({', '.join(IMAGE_COLUMNS)}); "
                                    f"it has {', '.join(names)}")
            column.clear()
            column[file] = pq.read_table(file, columns=found[:1]).column(0).to_pylist()
        data = picture_bytes(column[file][row_index])
        if data is None:
            raise MalformedData(f"{file}: row {row_index} has no picture bytes")
        return data

    return places, read


def reference_pictures(source: Path, group: str, fraction: float | None, seed: int,
                       chunk: int = 256) -> tuple[ReferenceSet, Iterator[list[Rgba]]]:
    """The FID references of ``group`` under ``source`` (``source/<group>`` when it exists):
    picture files, or parquet shards in the MMSVG schema; a seeded ``fraction`` of them
    (None: all). Pictures come in chunks of ``chunk``, decoded when read."""
    folder = source / group if (source / group).is_dir() else source
    if not folder.is_dir():
        raise DataUnavailable(f"fid_reference {source}: no such folder")
    files = sorted(p for p in folder.rglob("*") if p.suffix.lower() in PICTURE_SUFFIXES)
    shards = sorted(folder.rglob("*.parquet"))
    if files:
        total = len(files)
        reader: Any = None
    elif shards:
        places, reader = _parquet_images(shards)
        total = len(places)
    else:
        raise DataUnavailable(f"fid_reference {folder}: no pictures or parquet shards in it")
    indices = sample_indices(total, fraction, seed) if fraction is not None else list(range(total))

    def chunks() -> Iterator[list[Rgba]]:
        for start in range(0, len(indices), chunk):
            part = indices[start : start + chunk]
            if reader is None:
                yield [decode(files[i].read_bytes()) for i in part]
            else:
                yield [decode(reader(*places[i])) for i in part]

    return ReferenceSet(str(folder), total, indices), chunks()


def has_pictures(source: Path, group: str) -> bool:
    """True when the reference folder of ``group`` holds picture files (not parquet shards)."""
    folder = source / group if (source / group).is_dir() else source
    return any(p.suffix.lower() in PICTURE_SUFFIXES for p in folder.rglob("*"))

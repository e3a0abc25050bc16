"""SGP-Bench rows: the hub datasets ``sgp-bench/sgp-bench`` and ``sgp-bench/sgp-mnist``, or a
local copy.

The released evaluators read ``load_dataset('sgp-bench/sgp-bench', split=mode)`` (``sgp_eval.py``)
with ``mode`` one of ``svg``, ``cad``, ``inv``, ``inv_t0``..``inv_t4``, ``inv_r0``..``inv_r4``,
and ``load_dataset('sgp-bench/sgp-mnist', split='mnist')`` (``mnist_eval.py``). A row holds
``Question`` (the program followed by the question), ``A``..``D`` (options), ``Answer`` (a letter;
the digit for MNIST) and ``Subject`` (the category). Other columns are ignored; columns are
matched without regard to case and surrounding spaces, and a missing one stops with a line
naming the columns found.

``--data PATH`` takes a parquet or CSV file (one split), or a folder holding, per split, the
hub's ``<split>-*.parquet`` files (found anywhere below it), a ``<split>.parquet`` or the
README's ``<split>.csv``. Without it the split is loaded with ``datasets`` (cached by it).
"""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from svgeval.tasks.common.rows import read_hub_split, read_parquet_tables
from svgeval.tasks.data_files import MalformedData
from svgeval.tasks.download import DataUnavailable

BENCH_HUB_ID = "sgp-bench/sgp-bench"
MNIST_HUB_ID = "sgp-bench/sgp-mnist"
MCQ_COLUMNS = ("Question", "A", "B", "C", "D", "Answer", "Subject")
MNIST_COLUMNS = ("Question", "Answer")


def _split_files(path: Path, split: str) -> list[Path]:
    """The files of ``split`` under the folder ``path`` (see the module docstring)."""
    hub = sorted(p for p in path.rglob(f"{split}-*.parquet"))
    if hub:
        return hub
    return [p for p in (path / f"{split}.parquet", path / f"{split}.csv") if p.is_file()][:1]


def _read_file(path: Path, split: str) -> list[dict[str, Any]]:
    if path.suffix == ".csv":
        try:
            with path.open(newline="", encoding="utf-8") as handle:
                return list(csv.DictReader(handle))
        except (UnicodeDecodeError, csv.Error) as error:
            raise MalformedData(f"{path}: not a readable CSV file ({error})") from None
    return [row for _, table in read_parquet_tables(path, split) for row in table.to_pylist()]


def read_local(path: Path, split: str) -> list[dict[str, Any]]:
    """The raw rows of ``split`` in the file or folder ``path``."""
    if path.is_file():
        return _read_file(path, split)
    if not path.is_dir():
        raise DataUnavailable(f"--data {path}: no such file or folder")
    files = _split_files(path, split)
    if not files:
        raise DataUnavailable(
            f"--data {path}: no {split}-*.parquet, {split}.parquet or {split}.csv under it"
        )
    return [row for file in files for row in _read_file(file, split)]


def select_columns(
    rows: Sequence[Mapping[str, Any]], columns: Sequence[str], where: str
) -> list[dict[str, str]]:
    """Each row reduced to ``columns`` (matched case-insensitively, values as text);
    :class:`MalformedData` naming the columns found when one is missing."""
    if not rows:
        raise DataUnavailable(f"{where} has no rows")
    found = {str(name).strip().lower(): name for name in rows[0]}
    missing = [column for column in columns if column.lower() not in found]
    if missing:
        raise MalformedData(
            f"{where}: no column {', '.join(missing)}; columns found: {', '.join(map(str, rows[0]))}"
        )
    return [{column: _text(row.get(found[column.lower()])) for column in columns} for row in rows]


def _text(value: Any) -> str:
    """A cell as text: an absent one empty, any other written out (an integer answer ``0`` is
    ``"0"``, which ``str(value or "")`` turned into an empty answer)."""
    return "" if value is None else str(value)


def load_split(data: Path | None, hub_id: str, split: str, columns: Sequence[str]) -> (
    list[dict[str, str]]
):
    """The rows of ``split`` from ``data`` or the hub, reduced to ``columns``."""
    raw = read_local(data, split) if data is not None else read_hub_split(hub_id, split)
    return select_columns(raw, columns, f"{data or hub_id} split {split}")

"""Rows of datasets kept as parquet files, and sample ids made unique.

The Hugging Face releases several suites read (VectorGym, StarVector's SVG-Bench) are stored as
``data/<split>-NNNNN-of-NNNNN.parquet``; ``--data PATH`` takes one such file or a folder holding
them. A release may repeat an id; :func:`unique_ids` keeps every row apart.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from svgeval.metrics._models import check_hub
from svgeval.tasks.data_files import MalformedData
from svgeval.tasks.download import DataUnavailable, hub_failure


def unique_ids(ids: Sequence[str]) -> list[str]:
    """``ids`` with repeats made unique by a ``#n`` suffix (the second ``a`` becomes ``a#2``)."""
    seen: dict[str, int] = {}
    out = []
    for sample_id in ids:
        seen[sample_id] = seen.get(sample_id, 0) + 1
        out.append(sample_id if seen[sample_id] == 1 else f"{sample_id}#{seen[sample_id]}")
    return out


def parquet_files(path: Path, split: str) -> list[Path]:
    """The parquet files of ``split`` under ``path`` (a file is its own list)."""
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise DataUnavailable(f"--data {path}: no such file or folder")
    return sorted(p for p in path.rglob("*.parquet") if p.name.startswith(f"{split}-"))


def read_parquet_tables(path: Path, split: str) -> Iterator[tuple[Path, Any]]:
    """Each parquet file of ``split`` under ``path`` with its ``pyarrow`` table, read one at a
    time; :class:`DataUnavailable` when there is none, :class:`MalformedData` naming a file
    that cannot be read."""
    import pyarrow.parquet as pq

    files = parquet_files(path, split)
    if not files:
        raise DataUnavailable(f"--data {path}: no {split}-*.parquet file under it")
    for file in files:
        try:
            table = pq.read_table(file)
        except Exception as error:  # noqa: BLE001 (pyarrow raises several kinds)
            raise MalformedData(f"{file}: not a readable parquet file ({error})") from None
        yield file, table


def read_hub_split(hub_id: str, split: str) -> list[dict[str, Any]]:
    """The raw rows of ``hub_id`` split ``split`` through ``datasets`` (and its cache, alone
    when the hub does not answer: :func:`~svgeval.metrics._models.check_hub`);
    :class:`DataUnavailable` with one line when they cannot be had."""
    try:
        import datasets
    except ImportError:
        raise DataUnavailable(f"loading {hub_id} from the hub needs datasets: pip install "
                              "'svgeval[hub]'; or pass --data PATH") from None
    unreachable = check_hub()
    try:
        table = datasets.load_dataset(hub_id, split=split)
    except Exception as error:  # noqa: BLE001 (network, missing split, ...)
        raise hub_failure(f"load {hub_id} split {split}", error, unreachable) from None
    return [dict(row) for row in table]

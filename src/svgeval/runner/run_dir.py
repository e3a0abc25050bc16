"""The run directory: what a run writes, and how an interrupted run is picked up again.

``--out DIR`` holds:

* ``config.json``: task, model, arguments, package version, dataset hash, written at the start.
* ``responses.jsonl``: the model's raw answers, one line per sample as it arrives (the cache that
  lets ``svgeval score`` and ``--resume`` re-score without calling the model again).
* ``samples.jsonl``: one record per scored sample, appended and flushed as it finishes.
* ``results.json``: the aggregate numbers, written at the end.

Lines are appended with a flush and fsync, so a run killed at any moment leaves at most one
truncated last line, which :func:`read_jsonl` drops. On ``--resume`` the records of each file are
read back and the file is rewritten with one line per id, so every sample ends up exactly once.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO, Any

CONFIG = "config.json"
RESPONSES = "responses.jsonl"
SAMPLES = "samples.jsonl"
RESULTS = "results.json"


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Records of a JSONL file; a truncated or corrupt line (an interrupted write) is skipped."""
    if not path.exists():
        return []
    records = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(record, dict):
                records.append(record)
    return records


def write_json(path: Path, data: Mapping[str, Any]) -> None:
    """Write JSON atomically (temporary file, then rename)."""
    scratch = path.with_suffix(path.suffix + ".tmp")
    scratch.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(scratch, path)


def rewrite_jsonl(path: Path, records: Iterable[Mapping[str, Any]]) -> None:
    """Replace ``path`` atomically with ``records``, one line each."""
    scratch = path.with_suffix(path.suffix + ".tmp")
    with scratch.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(scratch, path)


class JsonlAppender:
    """Appends one JSON record per line, flushed and fsynced, so finished work survives a kill."""

    def __init__(self, path: Path) -> None:
        self._handle: IO[str] = path.open("a", encoding="utf-8")

    def append(self, record: Mapping[str, Any]) -> None:
        self._handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        self._handle.close()


def latest_by_id(records: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """The last record of each id, in first-seen order."""
    by_id: dict[str, dict[str, Any]] = {}
    for record in records:
        by_id[str(record["id"])] = dict(record)
    return by_id


class RunDir:
    """Paths and files of one run directory."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.config = root / CONFIG
        self.responses = root / RESPONSES
        self.samples = root / SAMPLES
        self.results = root / RESULTS

    def read_config(self) -> dict[str, Any] | None:
        if not self.config.exists():
            return None
        data: dict[str, Any] = json.loads(self.config.read_text(encoding="utf-8"))
        return data

    def has_work(self) -> bool:
        return any(p.exists() for p in (self.config, self.samples, self.responses))

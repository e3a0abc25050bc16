"""A JSONL file of sample records updated by appending new versions, then compacted once.

The batched metric stage adds metrics to records already in ``samples.jsonl``, one batch at a
time, and an interrupted stage must keep every batch it finished. Replacing the whole file after
each batch did that at a cost that grew with the square of the run: each of the ``N / batch``
batches read and wrote all ``N`` records, so a large run spent longer on the stage's files
than on its metrics (``python -m bench metric-stage``, ``bench/RESULTS.md``).

:class:`RecordLines` reads the file once, to learn where the latest line of each (sample id,
epoch) starts and ends. A batch's updated records are then appended, flushed and fsynced: the
readers take the last record of each key (:func:`~svgeval.runner.run_dir.latest_by_key`), so an
interrupted stage leaves a file that reads as the records it finished. :meth:`compact` finally
replaces the file (temporary file, fsync, rename) with the latest line of each key in first-seen
order, copied as bytes: what replacing the file after every batch left, written once.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from svgeval.runner.records import RecordKey, SampleRecord
from svgeval.runner.run_dir import CorruptRecord, replace_file
from svgeval.runner.safe_text import STORED


class _Key(BaseModel):
    """The key of a record line, the rest of the line skipped."""

    model_config = ConfigDict(extra="ignore")

    id: str
    epoch: int = 1


Span = tuple[int, int]
"""Where a line starts in the file and how many bytes it has (its newline left out)."""
_BLOCK = 1 << 22
"""Bytes read at a time when :meth:`RecordLines.compact` copies lines."""


def _runs(spans: Iterable[Span]) -> Iterator[Span]:
    """``spans`` (lines) joined where each starts right after the last one's newline: (start,
    bytes) of each run of lines, newlines included."""
    run: Span | None = None
    for start, size in spans:
        if run is not None and start == run[0] + run[1]:
            run = (run[0], run[1] + size + 1)
            continue
        if run is not None:
            yield run
        run = (start, size + 1)
    if run is not None:
        yield run


class RecordLines:
    """The sample records of the JSONL file ``path`` (made by the first append if it does not
    exist): each key's latest line, read when asked, new versions appended, the file compacted
    once at the end.

    A last line with no newline is a write that a kill cut short and is left out (and dropped by
    :meth:`compact`), as :func:`~svgeval.runner.run_dir.read_records` does; any other line that
    holds no key raises :class:`~svgeval.runner.run_dir.CorruptRecord`.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._latest: dict[RecordKey, Span] = {}
        """Key -> its latest line, in the order the keys were first seen."""
        self._end = 0
        """Where the next appended line starts (after the last whole line)."""
        self._appended = False
        if not path.exists():
            return
        with path.open("rb") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.endswith(b"\n"):
                    break
                if line.strip():
                    self._latest[self._key(line, number)] = (self._end, len(line) - 1)
                self._end += len(line)

    def _key(self, line: bytes, number: int) -> RecordKey:
        try:
            key = _Key.model_validate_json(line)
        except ValidationError as error:
            raise CorruptRecord(f"{self.path} line {number}: {error.errors()[0]['msg']}") from None
        return (key.id, key.epoch)

    def latest(self, keys: Iterable[RecordKey]) -> list[SampleRecord | None]:
        """The latest record in the file of each of ``keys`` (None for a key it has none of),
        read with one opening of the file."""
        found: list[SampleRecord | None] = []
        with self.path.open("rb") as handle:
            for key in keys:
                span = self._latest.get(key)
                if span is None:
                    found.append(None)
                    continue
                handle.seek(span[0])
                found.append(SampleRecord.model_validate_json(handle.read(span[1]),
                                                              context=STORED))
        return found

    def append(self, records: Iterable[SampleRecord]) -> None:
        """Append ``records`` as the latest of their keys; written, flushed and fsynced
        before this returns. A line a kill cut short before is written over."""
        lines = [(record.key, record.model_dump_json().encode("utf-8")) for record in records]
        if not lines:
            return
        with self.path.open("r+b" if self.path.exists() else "wb") as handle:
            handle.seek(self._end)
            for key, line in lines:
                handle.write(line + b"\n")
                self._latest[key] = (self._end, len(line))
                self._end += len(line) + 1
            handle.truncate()
            handle.flush()
            os.fsync(handle.fileno())
        self._appended = True

    def compact(self) -> None:
        """Replace the file with the latest line of each key, in first-seen order; nothing to
        do when nothing was appended. Lines that follow each other in the file are copied as
        one block (after a stage that updated every record in the run's order, the whole
        appended part is a single block)."""
        if not self._appended:
            return
        kept = list(self._latest.items())
        with self.path.open("rb") as handle:

            def blocks() -> Iterable[bytes]:
                for start, size in _runs(span for _, span in kept):
                    handle.seek(start)
                    while size > 0:
                        block = handle.read(min(size, _BLOCK))
                        if not block:  # cut short by someone else: stop, never spin
                            raise CorruptRecord(
                                f"{self.path} has {os.fstat(handle.fileno()).st_size} bytes, "
                                "fewer than the lines it was read with: was it changed by "
                                "another process?")
                        size -= len(block)
                        yield block

            replace_file(self.path, blocks())
        self._latest, self._end = {}, 0
        for key, (_, size) in kept:
            self._latest[key] = (self._end, size)
            self._end += size + 1
        self._appended = False

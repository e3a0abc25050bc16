"""A run's finished sample records, held as compact JSON text until the results read them.

After a sample is scored, its record is read again only by the batched metric stage and by the
results. Until then :class:`FinishedRecords` keeps the record's JSON without the prompt and the
answer (both are in ``samples.jsonl``) and, where no batched or set-level metric will draw it,
without the extracted SVG: about half a kilobyte a sample, where the record as a model object
took about three (bench/RESULTS.md). A record is parsed again each time it is read, without
the walk over its text that a record read from a file gets (:data:`~svgeval.runner.safe_text.STORED`:
svgeval dumped that JSON from a record whose text was storable already).
"""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping, Sequence
from typing import Any

from svgeval.runner.records import RecordKey, SampleRecord
from svgeval.runner.safe_text import STORED
from svgeval.tasks.lazy import LazySequence


class FinishedRecords(MutableMapping[RecordKey, SampleRecord]):
    """Finished records by key, stored as JSON lines without the prompt and answer (and the
    extracted SVG unless ``keep_extracted``)."""

    def __init__(self, keep_extracted: bool = True) -> None:
        self._slim: dict[str, Any] = {"prompt": [], "response": None}
        if not keep_extracted:
            self._slim["extracted"] = None
        self._lines: dict[RecordKey, str] = {}

    def __setitem__(self, key: RecordKey, record: SampleRecord) -> None:
        self._lines[key] = record.model_copy(update=self._slim).model_dump_json()

    def __getitem__(self, key: RecordKey) -> SampleRecord:
        return SampleRecord.model_validate_json(self._lines[key], context=STORED)

    def __delitem__(self, key: RecordKey) -> None:
        del self._lines[key]

    def __iter__(self) -> Iterator[RecordKey]:
        return iter(self._lines)

    def __len__(self) -> int:
        return len(self._lines)

    def in_order(self, keys: Sequence[RecordKey]) -> LazySequence[RecordKey, SampleRecord]:
        """The records of ``keys`` that are here, in that order, each parsed when read."""
        return LazySequence([key for key in keys if key in self._lines], self.__getitem__)

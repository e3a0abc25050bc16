"""A run's finished sample records, held as compressed JSON until the results read them.

After a sample is scored, its record is read again only by the batched metric stage and by the
results. Until then :class:`FinishedRecords` keeps the record's JSON without the prompt and the
answer (both are in ``samples.jsonl``) and, where no batched or set-level metric will draw it,
without the extracted SVG: about half a kilobyte, deflated with the run's first record as the
preset dictionary (its keys and most of its values recur in every record) to about 70 bytes
for an SVGEditBench sample, where the record as a model object took about two kilobytes
(bench/RESULTS.md, which also gives what deflating and inflating a record cost).

A record is parsed again each time it is read, without the walk over its text that a record
read from a file gets (:data:`~svgeval.runner.safe_text.STORED`: svgeval dumped that JSON from
a record whose text was storable already), so the results read exactly the records the run
made: the aggregate of the records read from here is the aggregate of the records themselves
(tests/runner/test_finished_records.py).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator, MutableMapping, Sequence
from typing import Any

from svgeval.runner.records import RecordKey, SampleRecord
from svgeval.runner.safe_text import STORED
from svgeval.tasks.lazy import LazySequence

WINDOW_BITS = -15
"""Raw deflate (no header or checksum), a 32 KiB window: room for the preset dictionary."""


class FinishedRecords(MutableMapping[RecordKey, SampleRecord]):
    """Finished records by key, stored as deflated JSON without the prompt and answer (and the
    extracted SVG unless ``keep_extracted``)."""

    def __init__(self, keep_extracted: bool = True) -> None:
        self._slim: dict[str, Any] = {"prompt": [], "response": None}
        if not keep_extracted:
            self._slim["extracted"] = None
        self._lines: dict[RecordKey, bytes] = {}
        self._dictionary = b""
        """The JSON of the first record stored: the preset dictionary of every other."""

    def __setitem__(self, key: RecordKey, record: SampleRecord) -> None:
        line = record.model_copy(update=self._slim).model_dump_json().encode("utf-8")
        if not self._dictionary:
            self._dictionary = line
        deflate = zlib.compressobj(1, zlib.DEFLATED, WINDOW_BITS, zdict=self._dictionary)
        self._lines[key] = deflate.compress(line) + deflate.flush()

    def __getitem__(self, key: RecordKey) -> SampleRecord:
        inflate = zlib.decompressobj(WINDOW_BITS, zdict=self._dictionary)
        line = inflate.decompress(self._lines[key]) + inflate.flush()
        return SampleRecord.model_validate_json(line, context=STORED)

    def __delitem__(self, key: RecordKey) -> None:
        del self._lines[key]

    def __iter__(self) -> Iterator[RecordKey]:
        return iter(self._lines)

    def __len__(self) -> int:
        return len(self._lines)

    def in_order(self, keys: Sequence[RecordKey]) -> LazySequence[RecordKey, SampleRecord]:
        """The records of ``keys`` that are here, in that order, each parsed when read."""
        return LazySequence([key for key in keys if key in self._lines], self.__getitem__)

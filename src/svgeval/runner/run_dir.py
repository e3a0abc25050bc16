"""The run directory: what a run writes, and how its records are read back.

``--out DIR`` holds (record types in :mod:`svgeval.runner.records`):

* ``config.json``: task, model, arguments, versions, dataset hash, written at the start.
* ``responses.jsonl``: the model's raw answers, one line per work unit (sample and epoch) as it
  arrives (the cache that lets ``svgeval score`` and ``--resume`` re-score without calling the
  model again).
* ``samples.jsonl``: one record per scored unit, appended and flushed as it finishes.
* ``judgments.jsonl``: the judge model's replies, for tasks scored by one (its cache, see
  :mod:`svgeval.runner.judging`).
* ``results.json``: the aggregate numbers, written at the end.
* ``servers.json``: how many requests at once each HTTP server took, once a run had to learn
  it, written as it changes (:meth:`Model.learned <svgeval.models.base.Model.learned>`).

Response and sample records are keyed by (sample id, epoch) (:func:`latest_by_key`); the epoch is
left out of a line when it is 1, so a one-epoch run writes what it always wrote. A directory made
with ``--shard`` holds one slice of the units; ``svgeval merge`` unites slices
(:mod:`svgeval.runner.merge`).

Lines are appended with a flush, or flushed in groups when they can be recomputed at no cost
(fsynced in groups, see :class:`RecordAppender`), so a run killed at any moment leaves at most one
truncated last line, which the readers drop. Any other line that is not a valid record stops the
reader with :class:`CorruptRecord`, naming the file and line. Files are only ever replaced
whole: a new version is written beside the old one and renamed over it, so a failure half-way
leaves the old file as it was.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from svgeval.errors import UserError
from svgeval.runner.records import (
    JudgmentRecord,
    RecordKey,
    ResponseRecord,
    Results,
    SampleRecord,
    ServersRecord,
)
from svgeval.runner.run_config import RunConfig

CONFIG = "config.json"
RESPONSES = "responses.jsonl"
SAMPLES = "samples.jsonl"
JUDGMENTS = "judgments.jsonl"
RESULTS = "results.json"
SERVERS = "servers.json"
RUN_FILES = (CONFIG, RESPONSES, SAMPLES, JUDGMENTS, RESULTS, SERVERS)
"""The files a run directory is made of (each may have scratch copies: ``NAME.tmp``)."""

R = TypeVar("R", bound=BaseModel)


class CorruptRecord(UserError, ValueError):
    """A run-directory file holds something that is not a valid record; the message names the
    file and line, the user's to repair or to move aside. A ValueError as well, the error it
    was before, which callers may catch."""


def _problem(error: ValidationError) -> str:
    first = error.errors()[0]
    field = ".".join(str(part) for part in first["loc"]) or "record"
    return f"field {field!r}: {first['msg']}"


def read_records(path: Path, record_type: type[R]) -> list[R]:
    """The records of a JSONL file, each validated as ``record_type``.

    A last line with no newline that does not parse is a write cut short by a kill and is
    dropped; any other bad line raises :class:`CorruptRecord` naming the file and line.
    """
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    records = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        cut_short = number == len(lines)  # the last piece has no newline after it
        try:
            records.append(record_type.model_validate_json(line))
        except ValidationError as error:
            if cut_short:
                continue
            raise CorruptRecord(f"{path} line {number}: {_problem(error)}") from None
    return records


def cut_short(path: Path, record_type: type[BaseModel]) -> bool:
    """True when the JSONL file ``path`` ends with a line that :func:`read_records` drops: no
    newline after it and not a valid ``record_type`` (a write a kill cut short). Reads the
    file's tail only."""
    if not path.exists():
        return False
    with path.open("rb") as handle:
        end = handle.seek(0, os.SEEK_END)
        tail, start = b"", end
        while start > 0 and b"\n" not in tail:
            start = max(0, start - 65_536)
            handle.seek(start)
            tail = handle.read(end - start)
    if not tail or tail.endswith(b"\n"):
        return False
    last = tail.rsplit(b"\n", 1)[-1].decode("utf-8", errors="replace")
    if not last.strip():
        return False
    try:
        record_type.model_validate_json(last)
    except ValidationError:
        return True
    return False


def read_record(path: Path, record_type: type[R]) -> R | None:
    """The one record of a JSON file (None when the file does not exist)."""
    if not path.exists():
        return None
    try:
        return record_type.model_validate_json(path.read_text(encoding="utf-8"))
    except ValidationError as error:
        raise CorruptRecord(f"{path}: {_problem(error)}") from None


def write_record(path: Path, record: BaseModel) -> None:
    """Write one record as JSON atomically (temporary file, fsync, rename)."""
    rewrite_lines(path, [record.model_dump_json(indent=2)])


def rewrite_records(path: Path, records: Iterable[BaseModel]) -> None:
    """Replace the JSONL file ``path`` atomically with ``records``, one line each."""
    rewrite_lines(path, (record.model_dump_json() for record in records))


def rewrite_lines(path: Path, lines: Iterable[str]) -> None:
    """Replace ``path`` atomically with ``lines``, each ended by a newline
    (:func:`replace_file`)."""
    replace_file(path, ((line + "\n").encode("utf-8") for line in lines))


def replace_file(path: Path, blocks: Iterable[bytes]) -> None:
    """Replace ``path`` atomically: write ``blocks`` to a temporary file, fsync, rename."""
    scratch = path.with_name(path.name + ".tmp")
    with scratch.open("wb") as handle:
        for block in blocks:
            handle.write(block)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(scratch, path)


class RecordAppender:
    """Appends one record per line: written and flushed at once, or in groups; fsynced in groups.

    By default each line is written and flushed to the operating system as it is appended, so
    a killed process (``kill -9``) loses nothing: the answers a model was paid for are written
    so. With ``flush_interval_s`` :meth:`append` only queues the line, and the background
    thread writes the queued lines and flushes them at most that often: for records that
    ``--resume`` can recompute without cost (the scores of cached answers, the answers of a free
    model), a ``kill -9`` loses at most that interval, and the caller (the event loop) never
    waits on a write (a write releases the interpreter lock, and taking it back waits for the
    scoring threads). The background thread fsyncs at most once per ``sync_interval_s`` while
    there are unsynced lines, and :meth:`close` writes, flushes and fsyncs what is left, so a
    power loss costs at most the last interval.
    """

    def __init__(self, path: Path, sync_interval_s: float = 1.0,
                 flush_interval_s: float | None = None) -> None:
        self._handle: IO[str] = path.open("a", encoding="utf-8")
        self._interval = sync_interval_s
        self._flush_interval = flush_interval_s
        self._queued: list[str] = []
        self._lock = threading.Lock()
        self._dirty, self._closing = threading.Event(), threading.Event()
        self._syncer = threading.Thread(target=self._sync, name="svgeval-fsync", daemon=True)
        self._syncer.start()

    def append(self, record: BaseModel) -> None:
        line = record.model_dump_json() + "\n"
        with self._lock:
            if self._flush_interval is None:
                self._handle.write(line)
                self._handle.flush()
            else:
                self._queued.append(line)
        self._dirty.set()

    def _write_queued(self) -> None:
        """Write and flush the queued lines (the writes happen outside the lock)."""
        with self._lock:
            lines, self._queued = self._queued, []
        if lines:
            self._handle.write("".join(lines))
        self._handle.flush()

    def _sync(self) -> None:
        synced = time.monotonic()
        while True:
            self._dirty.wait()
            if self._closing.is_set():
                return
            self._dirty.clear()
            if self._flush_interval is not None:  # else append has written and flushed
                self._write_queued()
            if time.monotonic() - synced >= self._interval or self._flush_interval is None:
                os.fsync(self._handle.fileno())
                synced = time.monotonic()
            else:
                self._dirty.set()  # still to be fsynced
            wait = self._interval if self._flush_interval is None else self._flush_interval
            if self._closing.wait(wait):
                return

    def close(self) -> None:
        if self._handle.closed:
            return
        self._closing.set()
        self._dirty.set()
        self._syncer.join()
        self._write_queued()
        os.fsync(self._handle.fileno())
        self._handle.close()


class _HasId(Protocol):
    id: str


I = TypeVar("I", bound=_HasId)


def latest_by_id(records: Iterable[I]) -> dict[str, I]:
    """The last record of each id, in first-seen order."""
    by_id: dict[str, I] = {}
    for record in records:
        by_id[record.id] = record
    return by_id


class _HasKey(Protocol):
    @property
    def key(self) -> RecordKey: ...


K = TypeVar("K", bound=_HasKey)


def latest_by_key(records: Iterable[K]) -> dict[RecordKey, K]:
    """The last record of each (sample id, epoch), in first-seen order."""
    by_key: dict[RecordKey, K] = {}
    for record in records:
        by_key[record.key] = record
    return by_key


def folder_name(text: str) -> str:
    """``text`` (a model spec) as the name of one folder inside its parent: each run of
    characters other than letters, digits, ``.``, ``_`` and ``-`` becomes ``_`` (no ``/``, no
    ``:``), and leading dots are dropped (neither ``..`` nor a hidden folder)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).lstrip(".") or "_"


class OutIsAFile(UserError, ValueError):
    """The run directory asked for is a file. A ValueError as well, the error :class:`RunDir`
    raised for it before, which callers may catch."""


class RunDir:
    """Paths and typed files of one run directory."""

    def __init__(self, root: Path) -> None:
        if root.exists() and not root.is_dir():
            raise OutIsAFile(f"--out {root} is a file, not a directory; choose a folder")
        self.root = root
        self.config = root / CONFIG
        self.responses = root / RESPONSES
        self.samples = root / SAMPLES
        self.judgments = root / JUDGMENTS
        self.results = root / RESULTS
        self.servers = root / SERVERS

    def read_config(self) -> RunConfig | None:
        return read_record(self.config, RunConfig)

    def read_responses(self) -> list[ResponseRecord]:
        return read_records(self.responses, ResponseRecord)

    def read_samples(self) -> list[SampleRecord]:
        return read_records(self.samples, SampleRecord)

    def read_judgments(self) -> list[JudgmentRecord]:
        return read_records(self.judgments, JudgmentRecord)

    def read_results(self) -> Results | None:
        return read_record(self.results, Results)

    def read_servers(self) -> ServersRecord:
        return read_record(self.servers, ServersRecord) or ServersRecord()

    def has_work(self) -> bool:
        return any(p.exists() for p in (self.config, self.samples, self.responses))

    def describe(self) -> str:
        """What the directory holds, for a message: ``a svgeditbench run of identity (started
        ..., 72 samples recorded, results.json written)``."""
        lines = 0
        if self.samples.exists():
            with self.samples.open("rb") as handle:
                lines = sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b""))
        held = f"{lines} samples recorded" + (", results.json written" if self.results.exists()
                                              else "")
        try:
            config = self.read_config()
        except CorruptRecord:
            config = None
        if config is None:
            return f"the records of a run without a readable config.json ({held})"
        return f"a {config.task} run of {config.model} (started {config.created_at}, {held})"


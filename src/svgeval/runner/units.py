"""Work units: which answers a run asks for, with ``--limit``, ``--epochs`` and ``--shard``.

A work unit is one answer to one prompt: a sample and an epoch (1 to ``--epochs``). Its key in
the run directory is ``(sample id, epoch)`` (:data:`~svgeval.runner.records.RecordKey`). Units
come epoch by epoch, each epoch in the dataset's order, so epoch 1 alone is exactly the run
svgeval made before epochs existed.

``--shard INDEX/COUNT`` keeps the units whose shard number is INDEX, where the shard number of a
unit is the SHA-256 of ``[task, dataset hash, model, sample id, epoch]`` (JSON) read as an
integer, modulo COUNT: every machine computes the same partition, whatever its Python (the
built-in ``hash()`` is salted per process), and the COUNT slices together hold every unit
exactly once.

Epoch ``e`` of a run with ``--seed S`` asks the model with seed ``S`` for epoch 1 (so a
one-epoch run sends what it always sent) and, for ``e > 1``, with the first 31 bits of
SHA-256 of ``"svgeval-epoch:S:e"``: a fixed seed per epoch that no other ``--seed`` gives
epoch 1.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from svgeval.runner.records import RecordKey
from svgeval.runner.run_config import RunConfig
from svgeval.tasks.base import Sample
from svgeval.tasks.lazy import SampleView, headers


@dataclass(frozen=True, slots=True)
class WorkUnit:
    """One answer a run asks for: sample ``index`` of ``samples`` (whose id is ``sample_id``)
    answered for the ``epoch``-th time. The unit holds the run's sample sequence, not the
    sample: a lazy dataset (:mod:`svgeval.tasks.lazy`) is read when the unit is worked on.
    Slotted: a run holds one per answer (72 bytes each instead of about 170)."""

    samples: Sequence[Sample] = field(compare=False, repr=False)
    index: int
    sample_id: str
    epoch: int = 1

    @property
    def sample(self) -> Sample:
        """The unit's sample (read again from a lazy dataset at each use)."""
        return self.samples[self.index]

    @property
    def key(self) -> RecordKey:
        """The unit's records' key: sample id and epoch."""
        return (self.sample_id, self.epoch)


def distinct_samples(units: Sequence[WorkUnit]) -> Sequence[Sample]:
    """The samples of ``units`` (the units of one run, sharing one sample sequence), each once,
    in order, read when used."""
    if not units:
        return []
    first = {unit.index: None for unit in units}
    return SampleView(units[0].samples, list(first))


class SamplesById(Mapping[str, Sample]):
    """The samples of ``units`` by id, each read when it is looked up."""

    def __init__(self, units: Sequence[WorkUnit]) -> None:
        self._units = {unit.sample_id: unit for unit in units}

    def __getitem__(self, sample_id: str) -> Sample:
        return self._units[sample_id].sample

    def __iter__(self) -> Iterator[str]:
        return iter(self._units)

    def __len__(self) -> int:
        return len(self._units)


def select_samples(samples: Sequence[Sample], limit: int | None) -> Sequence[Sample]:
    """The first ``limit`` samples of each group (all of them when ``limit`` is None), without
    reading them."""
    if limit is None:
        return samples
    taken: dict[str, int] = {}
    selected = []
    for index, header in enumerate(headers(samples)):
        if taken.get(header.group, 0) < limit:
            taken[header.group] = taken.get(header.group, 0) + 1
            selected.append(index)
    return SampleView(samples, selected)


READ_AHEAD = 32
"""Samples read per trip to a thread by :func:`read_ahead`."""


async def read_ahead(units: Sequence[WorkUnit],
                     ready: asyncio.Queue[tuple[WorkUnit, Sample] | None], consumers: int) -> None:
    """Put each unit with its sample on ``ready``, in order, then one None per consumer.

    The samples are read :data:`READ_AHEAD` at a time in a thread: a lazy dataset's files are
    read off the event loop (there, each read would wait for the interpreter lock while the
    scoring threads run), and ``ready``'s bound keeps only a few samples in memory.
    """
    for start in range(0, len(units), READ_AHEAD):
        chunk = units[start:start + READ_AHEAD]
        samples = await asyncio.to_thread(_samples_of, chunk)
        for unit, sample in zip(chunk, samples):
            await ready.put((unit, sample))
    for _ in range(consumers):
        await ready.put(None)


def _samples_of(units: Sequence[WorkUnit]) -> list[Sample]:
    return [unit.sample for unit in units]


def shard_number(config: RunConfig, sample_id: str, epoch: int, count: int) -> int:
    """The slice (0 to ``count - 1``) of the unit ``(sample_id, epoch)`` of the run ``config``."""
    key = [config.task, config.dataset_hash, config.model, sample_id, epoch]
    digest = hashlib.sha256(json.dumps(key, ensure_ascii=False).encode("utf-8")).hexdigest()
    return int(digest, 16) % count


def work_units(samples: Sequence[Sample], config: RunConfig) -> list[WorkUnit]:
    """The units of ``samples`` (already limited) for the epochs and the shard of ``config``."""
    shard = config.settings.shard
    ids = [header.id for header in headers(samples)]
    return [
        WorkUnit(samples, index, sample_id, epoch)
        for epoch in range(1, config.settings.epochs + 1)
        for index, sample_id in enumerate(ids)
        if shard is None or shard_number(config, sample_id, epoch, shard.count) == shard.index
    ]


def epoch_seed(seed: int | None, epoch: int) -> int | None:
    """The seed sent with the answers of ``epoch`` (see the module's docstring)."""
    if seed is None or epoch == 1:
        return seed
    digest = hashlib.sha256(f"svgeval-epoch:{seed}:{epoch}".encode()).hexdigest()
    return int(digest, 16) & 0x7FFFFFFF

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

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from svgeval.runner.records import RecordKey, RunConfig, Shard
from svgeval.tasks.base import Sample


@dataclass(frozen=True)
class WorkUnit:
    """One answer a run asks for: ``sample`` answered for the ``epoch``-th time."""

    sample: Sample
    epoch: int = 1

    @property
    def key(self) -> RecordKey:
        """The unit's records' key: sample id and epoch."""
        return (self.sample.id, self.epoch)


def distinct_samples(units: Sequence[WorkUnit]) -> list[Sample]:
    """The samples of ``units``, each once, in order."""
    return list({unit.sample.id: unit.sample for unit in units}.values())


def select_samples(samples: Sequence[Sample], limit: int | None) -> list[Sample]:
    """The first ``limit`` samples of each group (all of them when ``limit`` is None)."""
    if limit is None:
        return list(samples)
    taken: dict[str, int] = {}
    selected = []
    for sample in samples:
        if taken.get(sample.group, 0) < limit:
            taken[sample.group] = taken.get(sample.group, 0) + 1
            selected.append(sample)
    return selected


def shard_number(config: RunConfig, sample_id: str, epoch: int, count: int) -> int:
    """The slice (0 to ``count - 1``) of the unit ``(sample_id, epoch)`` of the run ``config``."""
    key = [config.task, config.dataset_hash, config.model, sample_id, epoch]
    digest = hashlib.sha256(json.dumps(key, ensure_ascii=False).encode("utf-8")).hexdigest()
    return int(digest, 16) % count


def work_units(samples: Sequence[Sample], config: RunConfig) -> list[WorkUnit]:
    """The units of ``samples`` (already limited) for the epochs and the shard of ``config``."""
    shard = config.settings.shard
    return [
        WorkUnit(sample, epoch)
        for epoch in range(1, config.settings.epochs + 1)
        for sample in samples
        if shard is None or shard_number(config, sample.id, epoch, shard.count) == shard.index
    ]


def epoch_seed(seed: int | None, epoch: int) -> int | None:
    """The seed sent with the answers of ``epoch`` (see the module's docstring)."""
    if seed is None or epoch == 1:
        return seed
    digest = hashlib.sha256(f"svgeval-epoch:{seed}:{epoch}".encode()).hexdigest()
    return int(digest, 16) & 0x7FFFFFFF


def parse_shard(text: str) -> Shard:
    """``--shard INDEX/COUNT`` as a :class:`Shard`; ValueError with a one-line message if not."""
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
    if match is None:
        raise ValueError(f"--shard expects INDEX/COUNT such as 0/2, got {text!r}")
    index, count = int(match[1]), int(match[2])
    if count < 1 or index >= count:
        raise ValueError(
            f"--shard {text}: INDEX must be 0 to COUNT-1 and COUNT at least 1 (e.g. 0/2 and 1/2)"
        )
    return Shard(index=index, count=count)

"""What a benchmark task is: samples to send to a model, and how to score the answers.

A task module defines a :class:`Task` subclass and registers it with :func:`register_task`
(see :mod:`svgeval.tasks`). The runner asks the task for its :class:`Sample` list, sends each
sample's ``messages`` to the model, and hands the response text to :meth:`Task.score`, which
returns a :class:`Score`. :meth:`Task.aggregate` turns the per-sample records into the flat
``"<group>/<metric>"`` numbers of ``results.json``.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from svgeval.metrics.registry import MetricUnavailable
from svgeval.svg.isolation import Renderer

Message = dict[str, Any]
"""A chat message in the OpenAI format: ``{"role": "user", "content": str | list[part]}``."""


@dataclass(frozen=True)
class Sample:
    """One item of a benchmark.

    ``group`` is what results are reported by (an SVGEditBench subtask, an SVGenius tier).
    ``input_svg`` is what the ``identity`` model answers (None when the task has no input SVG)
    and ``reference`` is the complete response the ``oracle`` model gives. ``target`` holds
    whatever the scorer needs (answer SVG, correct option, ...); it must be JSON-serialisable.
    """

    id: str
    group: str
    messages: list[Message]
    reference: str
    input_svg: str | None = None
    target: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class Score:
    """The outcome of scoring one response.

    ``valid`` is False when the response could not be used (no SVG, unparsable answer, render
    failure); ``failure`` then says why, with a short tag such as ``extract`` or
    ``render:timeout``. ``metrics`` maps metric names to values; a metric that could not be
    computed is None (never a stand-in 0) and ``not_computed`` says why.
    """

    valid: bool
    metrics: dict[str, float | None] = field(default_factory=dict)
    extracted: str | None = None
    extraction_rule: str | None = None
    failure: str | None = None
    detail: str | None = None
    not_computed: dict[str, str] = field(default_factory=dict)

    def add_metric(self, name: str, compute: Callable[[], float | None]) -> None:
        """Store ``compute()`` under ``name``; if the metric cannot run here (weights or a
        package missing), store None and the reason instead."""
        try:
            self.metrics[name] = compute()
        except MetricUnavailable as error:
            self.metrics[name] = None
            self.not_computed[name] = str(error)


@dataclass(frozen=True)
class TaskOptions:
    """Options every task accepts; ``extra`` carries task-specific ``--set key=value`` pairs."""

    data: Path | None = None
    seed: int = 0
    tier: str = "all"
    extra: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Aggregate:
    """Flat ``"<group>/<metric>"`` numbers plus sample and failure counts per group.

    ``not_computed`` maps a metric that could not run to the reason (its values are None).
    """

    metrics: dict[str, float | None]
    counts: dict[str, dict[str, Any]]
    not_computed: dict[str, str] = field(default_factory=dict)


class Task(ABC):
    """Base class of every benchmark task."""

    name: ClassVar[str]
    """Name used on the command line, e.g. ``svgeditbench``."""
    description: ClassVar[str]
    """One line for ``svgeval list tasks``."""
    version: ClassVar[str] = "1"
    """Bump when prompts or scoring change, so old and new numbers are never mixed."""
    metric_directions: ClassVar[Mapping[str, bool]] = {}
    """Metric name -> True when higher is better; used by reports."""

    def __init__(self, options: TaskOptions) -> None:
        self.options = options

    @abstractmethod
    def load(self) -> list[Sample]:
        """Return the samples, in a stable order."""

    @abstractmethod
    def score(self, sample: Sample, response: str, renderer: Renderer) -> Score:
        """Score one model response; must not raise for bad responses (return a failure)."""

    def aggregate(self, records: Sequence[Mapping[str, Any]]) -> Aggregate:
        """Per-group means of the per-sample metrics (see :func:`mean_per_group`).

        ``records`` are the lines of ``samples.jsonl``, including failed samples: the runner
        scores an empty response for a failed model call, so the task's own failure values
        apply to it too.
        """
        return mean_per_group(records)


def mean_per_group(
    records: Iterable[Mapping[str, Any]], summed: Collection[str] = ()
) -> Aggregate:
    """Per group, the mean of each metric over the records that carry a value for it.

    Tasks encode their averaging protocol in the per-sample values: a metric that a failed
    sample does not carry (or carries as None) is averaged over the other samples (the papers'
    usual protocol); a value a failed sample does carry counts it (e.g. ``*_all`` readings
    that give failures their worst or "no edit" value). Metrics named in ``summed`` are added
    up instead (counts). A metric no record could compute appears as None. Counts per group:
    ``n``, ``n_valid``, ``n_invalid`` and failures by tag.
    """
    values: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    counts: dict[str, dict[str, Any]] = {}
    not_computed: dict[str, str] = {}
    for record in records:
        not_computed.update(record.get("not_computed") or {})
        group = str(record["group"])
        count = counts.setdefault(group, {"n": 0, "n_valid": 0, "failures": {}})
        count["n"] += 1
        if record.get("valid"):
            count["n_valid"] += 1
        else:
            tag = str(record.get("failure") or "unknown")
            count["failures"][tag] = count["failures"].get(tag, 0) + 1
        for metric, value in (record.get("metrics") or {}).items():
            series = values[group][metric]
            if value is not None and not math.isnan(value):
                series.append(float(value))
    metrics: dict[str, float | None] = {}
    for group in sorted(values):
        for metric, series in sorted(values[group].items()):
            if not series:
                metrics[f"{group}/{metric}"] = None
            elif metric in summed:
                metrics[f"{group}/{metric}"] = sum(series)
            else:
                metrics[f"{group}/{metric}"] = sum(series) / len(series)
    for count in counts.values():
        count["n_invalid"] = count["n"] - count["n_valid"]
    return Aggregate(metrics=metrics, counts=counts, not_computed=not_computed)

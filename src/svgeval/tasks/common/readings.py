"""The paper's reading of a metric beside a second reading that treats failures another way.

Released protocols differ in what a failed answer (nothing extracted, a render that failed)
contributes to a mean, and some of them flatter a model that fails often. A task therefore
reports two readings of each metric, under ``<metric>`` (the paper's) and ``<metric><suffix>``,
which differ only in the value a failed answer carries (:data:`FailedValue`):

* ``left_out``: None, so the mean is over the other samples (SVGenius' released scorers);
* ``stand_in``: the value computed on the failure's stand-in, e.g. a white canvas
  (:class:`~svgeval.tasks.common.drawing.Drawing`) or an empty caption;
* ``worst``: the metric's worst value, from :attr:`TwoReadings.worst`.

SVGenius reports ``left_out`` beside ``stand_in`` under ``_all``; VectorGym and StarVector
report ``stand_in`` (their released placeholder) beside ``worst`` under ``_worst``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from svgeval.tasks.base import batch_values
from svgeval.tasks.outcome import MetricValues

FailedValue = Literal["left_out", "stand_in", "worst"]


@dataclass(frozen=True)
class TwoReadings:
    """Two readings of every metric: ``paper`` under the metric's own key and ``other`` under
    the key with ``suffix``; ``worst`` gives each metric's worst value where a reading asks
    for it."""

    suffix: str
    paper: FailedValue
    other: FailedValue
    worst: Mapping[str, float] = field(default_factory=dict)

    def keys(self, metrics: Mapping[str, str]) -> dict[str, str]:
        """``metrics`` (key -> registered metric) under both readings' keys, for
        :attr:`~svgeval.tasks.base.Task.metrics`."""
        return {f"{key}{suffix}": metric for key, metric in metrics.items()
                for suffix in ("", self.suffix)}

    def put(self, values: MetricValues, key: str, value: float | None, ok: bool) -> None:
        """Store ``value`` under both readings of ``key``; ``ok`` is False for a failed answer."""
        values.metrics[key] = self._reading(self.paper, key, value, ok)
        values.metrics[f"{key}{self.suffix}"] = self._reading(self.other, key, value, ok)

    def put_batch(self, held: Sequence[MetricValues], ok: Sequence[bool], key: str,
                  compute: Callable[[], Sequence[float | None]]) -> None:
        """One batched model metric under both readings (``ok`` per item of ``held``); when it
        cannot run here, None under both and the reason for every item."""
        values = batch_values(held, (key, f"{key}{self.suffix}"), compute)
        for item, valid, value in zip(held, ok, values):
            self.put(item, key, value, valid)

    def _reading(self, failed: FailedValue, key: str, value: float | None,
                 ok: bool) -> float | None:
        if ok or value is None or failed == "stand_in":
            return value
        return None if failed == "left_out" else self.worst[key]

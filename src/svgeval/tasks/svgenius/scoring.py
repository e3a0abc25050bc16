"""Rendering and aggregation shared by the SVGenius tasks.

Rendering follows the released code (``rasterize_svg`` in ``src/metrics/data_util.py``):
CairoSVG at 224 x 224 on a white background. Every render, of references and of model output,
goes through the isolated :class:`~svgeval.svg.isolation.Renderer`; reference renders are
cached by content so each original and ground truth is drawn once per run.

Aggregation gives one number per ``<tier>/<metric>``: the mean of the values that could be
computed. Tasks express the two failure protocols through their per-sample values: a metric
such as ``acc`` is None for a failed sample (left out, the paper's protocol) while its
``acc_all`` twin is 0 (counted as a miss, ours).
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections import OrderedDict, defaultdict
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from svgeval.svg.isolation import Renderer, RenderOutcome
from svgeval.svg.render import RenderSpec
from svgeval.tasks.base import Aggregate, mean_over_valid

RENDER_SPEC = RenderSpec.square(224, background="white")


class ReferenceRenders:
    """Renders of reference SVGs (originals, ground truths), cached by SVG content."""

    def __init__(self, capacity: int = 2048) -> None:
        self.capacity = capacity
        self._cache: OrderedDict[str, RenderOutcome] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, svg: str, renderer: Renderer) -> RenderOutcome:
        """The render of ``svg`` (computed on first use)."""
        key = hashlib.sha256(svg.encode("utf-8")).hexdigest()
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        outcome = renderer.render(svg, RENDER_SPEC)
        with self._lock:
            self._cache[key] = outcome
            while len(self._cache) > self.capacity:
                self._cache.popitem(last=False)
        return outcome


def render_failure_tag(prefix: str, outcome: RenderOutcome) -> str:
    """Failure tag of a render, e.g. ``render:timeout`` or ``reference_render:crash``."""
    return f"{prefix}:{outcome.failure.tag if outcome.failure else 'unknown'}"


def aggregate_by_tier(
    records: Iterable[Mapping[str, Any]],
    *,
    zero_if_unscored: Collection[str] = (),
    summed: Collection[str] = (),
) -> Aggregate:
    """Mean of every computed metric per tier, as ``"<tier>/<metric>"``.

    Values that are None or NaN are left out of the mean. Metrics named in ``summed`` are
    added up instead (counts such as ``n_unparsed``). A record with no metrics at all (the
    model call itself failed) counts as 0 for every metric in ``zero_if_unscored``. Sample and
    failure counts per tier are those of :func:`~svgeval.tasks.base.mean_over_valid`.
    """
    records = list(records)
    values: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for record in records:
        group = str(record["group"])
        metrics = record.get("metrics") or {}
        if not metrics:
            for name in zero_if_unscored:
                values[group][name].append(0.0)
        for name, value in metrics.items():
            if value is not None and not math.isnan(value):
                values[group][name].append(float(value))
    result: dict[str, float | None] = {}
    for group in sorted(values):
        for name, series in sorted(values[group].items()):
            result[f"{group}/{name}"] = sum(series) if name in summed else sum(series) / len(series)
    return Aggregate(metrics=result, counts=mean_over_valid(records).counts)

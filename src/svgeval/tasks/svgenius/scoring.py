"""Rendering shared by the SVGenius tasks, and how their failure protocols aggregate.

Rendering follows the released code (``rasterize_svg`` in ``src/metrics/data_util.py``):
CairoSVG at 224 x 224 on a white background. Every render, of references and of model output,
goes through the isolated :class:`~svgeval.svg.isolation.Renderer`; reference renders are
cached by content so each original and ground truth is drawn once per run.

Aggregation (:func:`~svgeval.tasks.base.mean_per_group`) gives one number per
``<tier>/<metric>``: the mean of the values that could be computed. Tasks express the two
failure protocols through their per-sample values: a metric such as ``acc`` is None for a
failed sample (left out, the paper's protocol) while its ``acc_all`` twin is 0 (counted as a
miss, ours).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

from svgeval.svg.isolation import Renderer, RenderOutcome
from svgeval.svg.render import RenderSpec

RENDER_SPEC = RenderSpec.square(224, background="white")


class ReferenceRenders:
    """Renders of reference SVGs (originals, ground truths), cached by SVG content, at
    ``spec`` (the released 224 px by default)."""

    def __init__(self, capacity: int = 2048, spec: RenderSpec = RENDER_SPEC) -> None:
        self.capacity = capacity
        self.spec = spec
        self._cache: OrderedDict[str, RenderOutcome] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, svg: str, renderer: Renderer) -> RenderOutcome:
        """The render of ``svg`` (computed on first use)."""
        key = hashlib.sha256(svg.encode("utf-8")).hexdigest()
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        outcome = renderer.render(svg, self.spec)
        with self._lock:
            self._cache[key] = outcome
            while len(self._cache) > self.capacity:
                self._cache.popitem(last=False)
        return outcome


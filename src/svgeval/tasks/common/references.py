"""Renders of reference SVGs, cached by content, that several suites share.

Every render, of references and of model output, goes through the isolated
:class:`~svgeval.svg.isolation.Renderer`; reference renders are cached by content so each
original and ground truth is drawn once per run, whatever the number of answers compared with
it.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

from svgeval.svg.isolation import Renderer, RenderOutcome
from svgeval.svg.render import RenderSpec


class ReferenceRenders:
    """Renders of reference SVGs (originals, ground truths) at ``spec``, cached by SVG content;
    the least recently used go first past ``capacity``."""

    def __init__(self, spec: RenderSpec, capacity: int = 2048) -> None:
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

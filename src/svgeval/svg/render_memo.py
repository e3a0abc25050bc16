"""A run's renders kept in memory, so an SVG drawn twice in a run is drawn once.

SVGEditBench scores 600 edits of 100 emoji: each original is drawn by six tasks, and an
identity model's 600 answers are those same 100 originals, so half of its 1,200 renders repeat.
:class:`RenderMemo` shares one render between every caller asking for the same SVG and
:class:`~svgeval.svg.render.RenderSpec`, also while it is still being drawn (the second caller
waits for the first render instead of starting its own).

Memory stays flat in the number of samples: entries are ``uint8`` pixels, evicted least
recently used once they exceed ``budget_bytes`` (32 MiB by default: about 2,100 renders at
72 px or 220 at 224 px). Only successful renders are kept; a failure is shared with the callers
already waiting on it, then forgotten (a timeout can depend on the machine's load).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future

import numpy as np
from numpy.typing import NDArray

from svgeval.svg.render import RenderFailure, RenderSpec

DEFAULT_BUDGET_BYTES = 32 * 1024 * 1024

Pixels = NDArray[np.uint8]
Drawn = Pixels | RenderFailure
"""A render: its pixels, or why there are none."""


def render_key(svg: str | bytes, spec: RenderSpec, renderer: str) -> str:
    """``sha256(svg bytes | W x H | background | renderer)`` as hex: one render's identity."""
    data = svg.encode("utf-8", "surrogatepass") if isinstance(svg, str) else svg
    digest = hashlib.sha256(data)
    digest.update(f"|{spec.width}x{spec.height}|{spec.background}|{renderer}".encode())
    return digest.hexdigest()


class RenderMemo:
    """Renders shared within a run: finished ones (bounded, LRU) and those in flight."""

    def __init__(self, budget_bytes: int = DEFAULT_BUDGET_BYTES) -> None:
        self.budget_bytes = budget_bytes
        self._done: OrderedDict[str, Pixels] = OrderedDict()
        self._in_flight: dict[str, Future[Drawn]] = {}
        self._bytes = 0
        self._lock = threading.Lock()
        self.hits = 0
        """Renders served from memory or from another caller's render in flight."""

    def get_or_render(self, key: str, draw: Callable[[], Drawn]) -> Drawn:
        """The render of ``key``: remembered, awaited from another caller, or ``draw()``-n."""
        with self._lock:
            pixels = self._done.get(key)
            if pixels is not None:
                self._done.move_to_end(key)
                self.hits += 1
                return pixels
            pending = self._in_flight.get(key)
            if pending is not None:
                self.hits += 1
            else:
                self._in_flight[key] = Future()
        if pending is not None:
            return pending.result()
        try:
            drawn = draw()
        except BaseException as error:
            self._settle(key, RenderFailure("render_error", f"{type(error).__name__}: {error}"))
            raise
        self._settle(key, drawn)
        return drawn

    def _settle(self, key: str, drawn: Drawn) -> None:
        """Remember a success (evicting the least recently used) and end the flight of ``key``."""
        with self._lock:
            owner = self._in_flight.pop(key)
            if isinstance(drawn, np.ndarray) and drawn.nbytes <= self.budget_bytes:
                self._done[key] = drawn
                self._bytes += drawn.nbytes
                while self._bytes > self.budget_bytes:
                    _, evicted = self._done.popitem(last=False)
                    self._bytes -= evicted.nbytes
        owner.set_result(drawn)

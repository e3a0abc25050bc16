"""A run's renders kept in memory, so an SVG drawn twice in a run is drawn once.

SVGEditBench scores 600 edits of 100 emoji: each original is drawn by six tasks, and an
identity model's 600 answers are those same 100 originals, so half of its 1,200 renders repeat.
:class:`RenderMemo` shares one render between every caller asking for the same SVG and
:class:`~svgeval.render.cairo.RenderSpec`, also while it is still being drawn (the second caller
waits for the first render instead of starting its own).

Memory stays flat in the number of samples: entries are pictures held compressed
(:meth:`~svgeval.render.picture.Picture.packed`: Zstandard level 1, faster than zlib at level 1,
used before, which cost a run a noticeable part of its own CPU: ``bench/RESULTS.md``), evicted
least recently used once they exceed ``budget_bytes`` (8 MiB by default: about 3,600 renders at 72 px, or 1,000 icons at
512 px, where raw pixels would hold 10). Kept raw, 6,000 SVGEditBench samples filled a 32 MiB
memo and made up most of the growth of a run's memory from 600 samples to 6,000. Only
successful renders are kept; a failure is shared with the callers already waiting on it, then
forgotten (a timeout can depend on the machine's load); so is an exception of the drawing itself
(the render workers lost), which those callers raise too.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Future

from svgeval.render.cairo import RenderSpec
from svgeval.render.picture import Picture, Rendered

DEFAULT_BUDGET_BYTES = 8 * 1024 * 1024


def render_key(svg: str | bytes, spec: RenderSpec, renderer: str) -> str:
    """``sha256(svg bytes | W x H | background | renderer)`` as hex, ``| dpi`` before the
    renderer when it is not 96: one render's identity."""
    data = svg.encode("utf-8", "surrogatepass") if isinstance(svg, str) else svg
    digest = hashlib.sha256(data)
    dpi = "" if spec.dpi == 96 else f"|dpi{spec.dpi:g}"
    digest.update(f"|{spec.width}x{spec.height}|{spec.background}{dpi}|{renderer}".encode())
    return digest.hexdigest()


class RenderMemo:
    """Renders shared within a run: finished ones (bounded, LRU) and those in flight."""

    def __init__(self, budget_bytes: int = DEFAULT_BUDGET_BYTES) -> None:
        self.budget_bytes = budget_bytes
        self._done: OrderedDict[str, Picture] = OrderedDict()
        """Pictures kept, packed."""
        self._in_flight: dict[str, Future[Rendered]] = {}
        self._bytes = 0
        self._lock = threading.Lock()
        self.hits = 0
        """Renders served from memory or from another caller's render in flight."""

    def get_or_render_many(self, keys: Sequence[str],
                           submit: Callable[[int], Future[Rendered]]) -> list[Rendered]:
        """The render of each of ``keys``: remembered, awaited from another caller, or drawn by
        ``submit(i)`` (which starts drawing ``keys[i]``), every draw started before any is
        awaited, so one caller waits once for all its renders instead of once for each."""
        claimed = [self._claim(key) for key in keys]
        drawing = {i: submit(i) for i, c in enumerate(claimed) if c is None}
        failed: BaseException | None = None
        for i, future in drawing.items():
            if failed is None:
                try:
                    self._settle(keys[i], future.result())
                    continue
                except BaseException as error:  # noqa: BLE001 - the machinery failed: raised below
                    failed = error
            self._fail(keys[i], failed)
        if failed is not None:
            raise failed
        return [c.unpacked() if isinstance(c, Picture) else
                c.result() if c is not None else drawing[i].result()
                for i, c in enumerate(claimed)]

    def _claim(self, key: str) -> Picture | Future[Rendered] | None:
        """The render of ``key`` kept, or the future of another caller drawing it; else None,
        and the caller draws it and must :meth:`_settle` (or :meth:`_fail`) it."""
        with self._lock:
            packed = self._done.get(key)
            if packed is not None:
                self._done.move_to_end(key)
                self.hits += 1
                return packed
            pending = self._in_flight.get(key)
            if pending is not None:
                self.hits += 1
                return pending
            self._in_flight[key] = Future()
        return None

    def _fail(self, key: str, error: BaseException) -> None:
        """End the flight of ``key`` with ``error`` (the callers waiting on it raise it)."""
        with self._lock:
            owner = self._in_flight.pop(key)
        owner.set_exception(error)

    @property
    def size_bytes(self) -> int:
        """Bytes of compressed pixels kept (at most ``budget_bytes``)."""
        return self._bytes

    def lookup(self, key: str) -> Picture | None:
        """The finished render of ``key`` kept in memory, packed, or None; never waits, never
        draws."""
        with self._lock:
            packed = self._done.get(key)
            if packed is None:
                return None
            self._done.move_to_end(key)
            self.hits += 1
        return packed

    def remember(self, key: str, picture: Picture) -> None:
        """Keep ``picture`` (packed, unless it is already) as the render of ``key``, drawn by the
        caller."""
        packed = picture.packed()
        with self._lock:
            self._keep(key, packed)

    def _settle(self, key: str, drawn: Rendered) -> None:
        """Remember a success and end the flight of ``key``."""
        packed = drawn.packed() if isinstance(drawn, Picture) else None
        with self._lock:
            owner = self._in_flight.pop(key)
            if packed is not None:
                self._keep(key, packed)
        owner.set_result(drawn)

    def _keep(self, key: str, packed: Picture) -> None:
        """Store ``packed`` under ``key``, evicting the least recently used past the budget
        (called with the lock held)."""
        if packed.nbytes > self.budget_bytes:
            return
        previous = self._done.pop(key, None)
        if previous is not None:
            self._bytes -= previous.nbytes
        self._done[key] = packed
        self._bytes += packed.nbytes
        while self._bytes > self.budget_bytes:
            _, evicted = self._done.popitem(last=False)
            self._bytes -= evicted.nbytes

"""Renders of reference SVGs, kept by content, that several suites share.

Every render, of references and of model output, goes through the isolated
:class:`~svgeval.render.isolated.Renderer`; reference renders are kept by content so each
original and ground truth is drawn once per run, whatever the number of answers compared with
it (while it stays within the budget).

They are kept as the renderer keeps its own (:class:`~svgeval.render.memo.RenderMemo`: the
8-bit pixels compressed with Zstandard, the least recently used dropped past a budget in bytes),
and turned into float images when asked for. Keeping the float64 images themselves, up to 2,048
of them, made a run's memory grow by 6 MiB a reference at 512 px, to about 12 GiB
(bench/RESULTS.md). A reference that does not draw is kept as its failure, so it is not drawn
again for each answer.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Sequence

from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.render.memo import RenderMemo
from svgeval.render.picture import Rendered, RenderFailure

DEFAULT_BUDGET_BYTES = 64 * 1024 * 1024
"""Compressed pixels kept: about 4,000 icons drawn at 512 px, 30,000 at 72 px."""
FAILURES_KEPT = 2048
"""Failed references remembered (each a reason of a few hundred bytes)."""


class ReferenceRenders:
    """Renders of reference SVGs (originals, ground truths) at ``spec``, kept by SVG content
    within ``budget_bytes`` of compressed pixels."""

    def __init__(self, spec: RenderSpec, budget_bytes: int = DEFAULT_BUDGET_BYTES) -> None:
        self.spec = spec
        self._drawn = RenderMemo(budget_bytes)
        self._failed: OrderedDict[str, RenderFailure] = OrderedDict()
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, object]:
        """What a copy in another process (a Ray actor) starts from: the spec and the budget,
        not this process's renders and lock (a task holding one pickles)."""
        return {"spec": self.spec, "budget_bytes": self._drawn.budget_bytes}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__init__(state["spec"], state["budget_bytes"])  # type: ignore[misc]

    def draw_all(self, svgs: Sequence[str], renderer: Renderer) -> list[Rendered]:
        """The picture of each of ``svgs`` or its failure; those not kept are
        drawn side by side (:meth:`~svgeval.render.isolated.Renderer.draw_all`)."""
        keys = [hashlib.sha256(svg.encode("utf-8")).hexdigest() for svg in svgs]
        found = [self._kept(key) for key in keys]
        missing = [i for i, kept in enumerate(found) if kept is None]
        drawn = dict(zip(missing, renderer.draw_all([svgs[i] for i in missing], self.spec)))
        for i, render in drawn.items():
            self._keep(keys[i], render)
        return [kept if kept is not None else drawn[i] for i, kept in enumerate(found)]

    def get(self, svg: str, renderer: Renderer) -> Rendered:
        """The picture of ``svg``, or its failure (drawn on first use)."""
        return self.draw_all([svg], renderer)[0]

    def _kept(self, key: str) -> Rendered | None:
        kept = self._drawn.lookup(key)
        if kept is not None:
            return kept.unpacked()
        with self._lock:
            return self._failed.get(key)

    def _keep(self, key: str, drawn: Rendered) -> None:
        if isinstance(drawn, RenderFailure):
            with self._lock:
                self._failed[key] = drawn
                while len(self._failed) > FAILURES_KEPT:
                    self._failed.popitem(last=False)
        else:
            self._drawn.remember(key, drawn)

"""Render many SVGs through a :class:`~svgeval.svg.isolation.Renderer`, several per worker call.

Each worker call renders a chunk of SVGs, so the inter-process cost (pickling the call, waking
a worker) is paid once per chunk instead of once per render. A per-SVG error (refused by the
sanitiser, render error) becomes that SVG's failure inside the chunk. A chunk that dies as a
whole (timeout, crash, out of memory) is retried one SVG per call, so a hostile SVG costs only
its own render, with the same isolation and time limit as :meth:`Renderer.render`.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numpy.typing import NDArray

from svgeval.svg.isolation import Renderer, RenderFunction, _failure_from
from svgeval.svg.render import RenderFailure, RenderSpec, render_svg_uint8

Rendered = NDArray[np.uint8] | RenderFailure
"""``uint8`` pixels, or why there are none."""


def render_chunk(
    svgs: Sequence[str | bytes], spec: RenderSpec, function: RenderFunction = render_svg_uint8
) -> list[Rendered]:
    """Render each SVG in this process; ordinary errors become failures (runs in a worker)."""
    out: list[Rendered] = []
    for svg in svgs:
        try:
            out.append(function(svg, spec))
        except MemoryError:
            raise  # the whole chunk is retried one SVG per call
        except Exception as error:  # noqa: BLE001 - untrusted input: every error is a failure
            out.append(_failure_from(error, 0.0))
    return out


def render_many(
    renderer: Renderer,
    svgs: Sequence[str | bytes],
    spec: RenderSpec,
    function: RenderFunction = render_svg_uint8,
    chunk_size: int = 8,
) -> list[Rendered]:
    """Render ``svgs`` in parallel worker calls of ``chunk_size``; results keep input order."""
    chunks = [list(svgs[i : i + chunk_size]) for i in range(0, len(svgs), chunk_size)]

    def run(chunk: list[str | bytes]) -> list[Rendered]:
        outcome = renderer.call(render_chunk, chunk, spec, function)
        if outcome.value is not None:
            return outcome.value
        if len(chunk) == 1:
            assert outcome.failure is not None
            return [outcome.failure]
        return [item for svg in chunk for item in run([svg])]

    if not chunks:
        return []
    with ThreadPoolExecutor(max_workers=min(len(chunks), 2 * renderer.workers)) as threads:
        return [item for result in threads.map(run, chunks) for item in result]

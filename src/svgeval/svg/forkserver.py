"""The process that starts render workers: multiprocessing's forkserver, with the renderers
imported once.

Render workers (:class:`~svgeval.svg.isolation.Renderer`) are forked from a forkserver, a clean
process started before any thread of ours exists, that has already imported the renderers, so a
new worker starts in milliseconds. Starting that server costs its imports (numpy, lxml and
svgeval's render modules, about 0.15 s; CairoSVG and cairo 0.25 s more, skia 0.05 s), which a
worker would otherwise pay before its first render. :func:`start_early` starts it at once
without waiting for it, so that it imports on a second core while the command line imports
svgeval on the first; told which renderer the run uses, it imports only that one.
"""

from __future__ import annotations

import multiprocessing
from multiprocessing import forkserver
from multiprocessing.context import ForkServerContext

COMMON_PRELOAD = ("svgeval.svg.render", "svgeval.svg.render_fast")
"""Modules every render worker needs (the render functions are pickled by reference to them)."""

RENDERER_PRELOAD = {"cairosvg": "cairosvg.surface", "skia": "skia", "resvg": "resvg_py"}
"""The module each ``--renderer`` draws with."""

DEFAULT_RENDERER = "cairosvg"
"""The renderer of every command and API unless one is named: CairoSVG, the papers'."""

PRELOAD = (*COMMON_PRELOAD, *RENDERER_PRELOAD.values())
"""What the server imports when the renderer is not known: everything (multiprocessing skips a
module that cannot be imported: skia and resvg are an optional extra)."""


def render_context(preload: tuple[str, ...] = PRELOAD) -> ForkServerContext:
    """The forkserver start method. ``preload`` takes effect only if the server is not running
    yet: there is one server per process, started by the first pool (or :func:`start_early`)."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(preload))
    return context


def start_early(renderer: str | None = None) -> None:
    """Start the forkserver now and return without waiting for its imports; with a known
    ``renderer``, the server imports only that renderer (another one still works: its workers
    import it themselves)."""
    known = RENDERER_PRELOAD.get(renderer or "")
    render_context((*COMMON_PRELOAD, known) if known else PRELOAD)
    forkserver.ensure_running()

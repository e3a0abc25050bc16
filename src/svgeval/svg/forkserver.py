"""The process that starts render workers: multiprocessing's forkserver, with the renderers
imported once.

Render workers (:class:`~svgeval.svg.isolation.Renderer`) are forked from a forkserver, a clean
process started before any thread of ours exists, that has already imported the renderers, so a
new worker starts in milliseconds. Starting that server costs its imports (about half a second:
numpy, lxml, CairoSVG and cairo, and skia where it is installed: 0.05-0.17 s more, which each
skia worker would otherwise pay before its first render). :func:`start_early` starts it at once
without waiting for it, so that it imports on a second core while the command line imports
svgeval on the first.
"""

from __future__ import annotations

import multiprocessing
from multiprocessing import forkserver
from multiprocessing.context import ForkServerContext

PRELOAD = ("svgeval.svg.render", "cairosvg.surface", "skia")
"""Modules render workers need, imported once in the forkserver (multiprocessing skips one that
cannot be imported: skia is an optional extra)."""


def render_context() -> ForkServerContext:
    """The forkserver start method, with :data:`PRELOAD` (the same server for every pool)."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(PRELOAD))
    return context


def start_early() -> None:
    """Start the forkserver now and return without waiting for its imports."""
    render_context()
    forkserver.ensure_running()

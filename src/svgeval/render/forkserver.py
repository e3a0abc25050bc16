"""The process that starts render workers: multiprocessing's forkserver, with the renderers
imported once, and workers that never run the caller's main module.

Render workers (:class:`~svgeval.render.isolated.Renderer`) are forked from a forkserver, a clean
process started before any thread of ours exists, that has already imported the renderers, so a
new worker starts in milliseconds. Starting that server costs its imports (numpy, lxml, OpenCV and
svgeval's render modules, then the renderers: ``bench/RESULTS.md``), which a worker would
otherwise pay before its first render. :func:`start_early` starts it at once
without waiting for it, so that it imports on a second core while the command line imports
svgeval on the first; told which renderer the run uses, it imports only that one.

Multiprocessing prepares every child it starts with forkserver or spawn to run the parent's main
module again (``init_main_from_path`` / ``init_main_from_name`` in its preparation data), so that
functions defined there can be unpickled. A render worker runs only svgeval's functions, so it
is started without: a script with no ``if __name__ == "__main__":`` guard is not run again in
every worker (its training loop started once per worker), and code read from stdin
(``python -``), ``python -c``, IPython and Jupyter work, where the preparation named a main
module (``<stdin>``) that no worker could find. Other processes of the same program are
prepared as multiprocessing always does.
"""

from __future__ import annotations

import multiprocessing
import threading
from multiprocessing import forkserver, popen_forkserver, spawn
from multiprocessing.context import ForkServerContext, ForkServerProcess
from typing import Any

COMMON_PRELOAD = ("svgeval.render.cairo", "svgeval.render.backends", "cv2")
"""Modules every render worker needs: the render functions are pickled by reference to them,
and OpenCV reorders every render's pixels (:func:`~svgeval.render.cairo.bgra_to_rgb`) and
computes the reward terms."""

RENDERER_PRELOAD = {"cairosvg": "cairosvg.surface", "skia": "skia", "resvg": "resvg_py"}
"""The module each ``--renderer`` draws with."""

DEFAULT_RENDERER = "cairosvg"
"""The renderer of every command and API unless one is named: CairoSVG, the papers'."""

PRELOAD = (*COMMON_PRELOAD, *RENDERER_PRELOAD.values())
"""What the server imports when the renderer is not known: everything (multiprocessing skips a
module that cannot be imported: skia and resvg are an optional extra)."""

_MAIN_MODULE_KEYS = ("init_main_from_path", "init_main_from_name")
"""The preparation data that makes a child run the parent's main module."""

_starting = threading.local()
"""``worker`` is True while this thread starts a render worker."""

_prepare_child = spawn.get_preparation_data


def _preparation_data(name: str) -> dict[str, Any]:
    """Multiprocessing's preparation data of a child, without the main module for a render
    worker started by this thread (:class:`RenderWorkerProcess`)."""
    data: dict[str, Any] = _prepare_child(name)
    if getattr(_starting, "worker", False):
        for key in _MAIN_MODULE_KEYS:
            data.pop(key, None)
    return data


spawn.get_preparation_data = _preparation_data  # the forkserver's Popen asks spawn for it


class _RenderWorkerPopen(popen_forkserver.Popen):
    """Starts one process through the forkserver, marked as a render worker meanwhile."""

    def _launch(self, process_obj: Any) -> None:
        _starting.worker = True
        try:
            super()._launch(process_obj)  # type: ignore[misc]
        finally:
            _starting.worker = False


class RenderWorkerProcess(ForkServerProcess):
    """A process forked from the forkserver that does not run the main module (module doc)."""

    @staticmethod
    def _Popen(process_obj: Any) -> Any:
        return _RenderWorkerPopen(process_obj)


class RenderWorkerContext(ForkServerContext):
    """The forkserver start method, for render workers (:class:`RenderWorkerProcess`)."""

    Process = RenderWorkerProcess


def render_context(preload: tuple[str, ...] = PRELOAD) -> RenderWorkerContext:
    """The render workers' start method. ``preload`` takes effect only if the server is not
    running yet: there is one server per process, started by the first pool (or
    :func:`start_early`)."""
    multiprocessing.get_context("forkserver")  # the platform has the forkserver start method
    context = RenderWorkerContext()
    context.set_forkserver_preload(list(preload))
    return context


def start_early(renderer: str | None = None) -> None:
    """Start the forkserver now and return without waiting for its imports; with a known
    ``renderer``, the server imports only that renderer (another one still works: its workers
    import it themselves)."""
    known = RENDERER_PRELOAD.get(renderer or "")
    render_context((*COMMON_PRELOAD, known) if known else PRELOAD)
    forkserver.ensure_running()

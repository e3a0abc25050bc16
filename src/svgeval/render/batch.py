"""Several renders per worker call: the inter-process cost (pickling a call, waking a worker,
sending pixels back) is paid once per chunk instead of once per render.

:class:`RenderBatcher` gathers the renders that threads ask for at the same time into chunks of
up to ``chunk_size`` and keeps at most two chunks per worker in flight: the one being drawn and
one queued behind it, so a worker starts its next chunk without waiting for this process to
collect the last (the collecting threads share the interpreter lock with the scoring), and
requests that arrive while the workers are busy travel together in a later chunk. With skia,
whose renders of small emoji are cheap beside a call's overhead, one chunk of eight is much
faster than eight calls (``bench/RESULTS.md``).

Within a chunk, a per-SVG error (refused by the sanitiser, render error) becomes that SVG's
failure. A chunk that dies as a whole (time limit, crash, out of memory) is retried one SVG per
call, so a hostile SVG costs only its own render, under the same time limit as a lone render
(it waits for the chunk's limit, then for its own). A lone render that spent its CPU time
(:mod:`svgeval.render.pool`) fails as a timeout: the SVG's cost. One whose worker dies
otherwise is drawn once more before its crash is recorded: a worker killed from outside (the
OOM killer, ``kill``) costs a render, not a result. One that reached the wall-clock limit with
CPU time to spare (a machine loaded far past its cores) is drawn once more on a fresh worker,
and only then recorded, as svgeval's time limit, not the SVG's (:func:`failure_from`). A chunk that a broken pool dropped was never the SVGs' doing: it
is sent again as it was (:mod:`svgeval.render.pool` starts a new pool), and if the workers
are lost for good (:class:`~svgeval.render.pool.RenderWorkersLost`) its renders raise that
error instead of becoming failures.
"""

from __future__ import annotations

import queue
import threading
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray
from pebble import ProcessExpired

from svgeval.render.cairo import RenderSpec
from svgeval.render.picture import Picture, Rendered, RenderFailure
from svgeval.render.pool import (
    MAX_RESTARTS,
    WALL_FACTOR,
    RenderWorkersLost,
    is_pool_loss,
    spent_its_cpu_time,
)
from svgeval.svg.refusals import SvgRejected

RenderFunction = Callable[[str | bytes, RenderSpec], NDArray[np.uint8]]
"""Renders SVG code to ``uint8`` pixels in a worker; must be importable (picklable by name)."""

CHUNKS_PER_WORKER = 2
"""Chunks sent to each worker before one comes back: the one drawn and the next."""

Schedule = Callable[..., "Future[Any]"]
"""``WorkerPool.schedule``: ``schedule(function, args=..., timeout=...)``."""


def failure_from(error: BaseException, timeout_s: float) -> RenderFailure:
    """The :class:`RenderFailure` an error of an isolated render stands for (a wall-clock
    time-out: after the render was tried twice, see the module doc)."""
    if isinstance(error, SvgRejected):
        return RenderFailure("rejected", error.detail, error.reason)
    if spent_its_cpu_time(error):
        return RenderFailure("timeout", f"render took longer than {timeout_s:g} s of CPU time")
    if isinstance(error, FutureTimeout):
        return RenderFailure(
            "timeout", f"no result after {timeout_s * WALL_FACTOR:g} s of wall time, twice, with "
            "CPU time to spare: svgeval's limit on a machine too busy to render (or a stuck "
            "renderer), not the SVG's cost; rerun it with fewer jobs beside it or a higher "
            "--render-timeout")
    if isinstance(error, ProcessExpired):
        return RenderFailure("crash", f"renderer process died (exit code {error.exitcode})")
    if isinstance(error, MemoryError):
        return RenderFailure("out_of_memory", "renderer ran out of memory")
    return RenderFailure("render_error", f"{type(error).__name__}: {error}"[:500])


def render_chunk(
    items: Sequence[tuple[str | bytes, RenderSpec]], function: RenderFunction
) -> list[Rendered]:
    """Render each ``(svg, spec)`` in this process; ordinary errors become failures (runs in a
    worker)."""
    out: list[Rendered] = []
    for svg, spec in items:
        try:
            out.append(Picture(function(svg, spec)))
        except MemoryError:
            raise  # the whole chunk is retried one SVG per call
        except Exception as error:  # noqa: BLE001 - untrusted input: every error is a failure
            out.append(failure_from(error, 0.0))
    return out


@dataclass
class _Request:
    svg: str | bytes
    spec: RenderSpec
    alone: bool = False
    """Render in a call of its own (a retry after its chunk died)."""
    crashed: bool = False
    """Its worker died once already while drawing it alone."""
    starved: bool = False
    """It reached the wall-clock limit once already, alone."""
    pool_losses: int = 0
    """Times a broken pool dropped its chunk."""
    future: Future[Rendered] = field(default_factory=Future)


class RenderBatcher:
    """Sends the renders asked for by many threads to the workers in chunks (see module doc)."""

    def __init__(self, schedule: Schedule, workers: int, timeout_s: float,
                 function: RenderFunction, chunk_size: int = 8) -> None:
        self._schedule = schedule
        self._timeout_s = timeout_s
        self._function = function
        self._chunk_size = chunk_size
        self._slots = threading.Semaphore(CHUNKS_PER_WORKER * workers)
        self._requests: queue.SimpleQueue[_Request | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._dispatch, name="svgeval-render-batcher",
                                        daemon=True)
        self._thread.start()

    def submit(self, svg: str | bytes, spec: RenderSpec) -> Future[Rendered]:
        """The render of ``svg``, once a worker has drawn it: its picture or failure; an
        exception only when the machinery failed (:class:`RenderWorkersLost`)."""
        request = _Request(svg, spec)
        self._requests.put(request)
        return request.future

    def close(self) -> None:
        """Stop after the requests already submitted."""
        self._requests.put(None)
        self._thread.join()

    def _dispatch(self) -> None:
        taken: deque[_Request | None] = deque()  # read from the queue, not yet sent
        while True:
            first = taken.popleft() if taken else self._requests.get()
            if first is None:
                return
            self._slots.acquire()  # requests queue up meanwhile, to travel together
            chunk = [first]
            while not first.alone and len(chunk) < self._chunk_size:
                try:
                    waiting = self._requests.get_nowait()
                except queue.Empty:
                    break
                if waiting is None or waiting.alone:
                    taken.append(waiting)
                    break
                chunk.append(waiting)
            self._send(chunk)

    def _send(self, chunk: list[_Request]) -> None:
        items = [(request.svg, request.spec) for request in chunk]
        try:
            future = self._schedule(render_chunk, args=(items, self._function),
                                    timeout=self._timeout_s)
        except Exception as error:  # noqa: BLE001 - no worker can draw: the machinery failed
            self._slots.release()
            for request in chunk:
                request.future.set_exception(error)
            return
        future.add_done_callback(lambda done: self._finish(chunk, done))

    def _finish(self, chunk: list[_Request], done: Future[list[Rendered]]) -> None:
        self._slots.release()
        try:
            results = done.result()
        except BaseException as error:  # noqa: BLE001 - the chunk died (a hostile SVG in it)
            if is_pool_loss(error):
                self._send_again(chunk, error)
            elif len(chunk) > 1:
                for request in chunk:
                    request.alone = True
                    self._requests.put(request)
            elif retried(chunk[0], error):
                self._requests.put(chunk[0])
            else:
                chunk[0].future.set_result(failure_from(error, self._timeout_s))
            return
        for request, result in zip(chunk, results):
            request.future.set_result(result)

    def _send_again(self, chunk: list[_Request], error: BaseException) -> None:
        """Queue a chunk that a broken pool dropped, unless pools keep dropping it."""
        for request in chunk:
            request.pool_losses += 1
            if request.pool_losses > MAX_RESTARTS:
                request.future.set_exception(RenderWorkersLost.after(error))
            else:
                self._requests.put(request)


def retried(request: _Request | CallAttempts, error: BaseException) -> bool:
    """Whether a lone render (or isolated call) that failed with ``error`` is tried once more:
    after its worker died (perhaps killed from outside) or it reached the wall-clock limit with
    CPU time to spare, the first time each; marked on ``request``."""
    if isinstance(error, FutureTimeout) and not request.starved:
        request.starved = True
        return True
    if (isinstance(error, ProcessExpired) and not spent_its_cpu_time(error)
            and not request.crashed):
        request.crashed = True
        return True
    return False


@dataclass
class CallAttempts:
    """What befell an isolated call's earlier attempts (see :func:`retried`)."""

    crashed: bool = False
    starved: bool = False

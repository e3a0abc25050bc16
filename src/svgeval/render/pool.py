"""The render workers' process pool: rebuilt when it breaks, gone when its owner is.

pebble's ``ProcessPool`` replaces a worker that dies during a task (the task fails with
``ProcessExpired``), but a worker that dies while no task has started (``kill -9``, the OOM
killer, an idle worker) puts the whole pool in an error state for good ("All workers
expired"): the tasks it held fail with ``BrokenProcessPool`` and every later one is refused,
while a task still in its queue (not yet taken up by its scheduler thread) is never answered.
:class:`WorkerPool` schedules on a pebble pool and replaces a broken pool with a new one; the
tasks the broken pool dropped are the machinery's loss, not a render's, and their callers
schedule them again (:mod:`svgeval.render.batch`). A worker killed while it reads its next task from
pebble's channel can also leave the pool alive but stuck: the lock it held is never released, the
other workers wait on it, and no task ever finishes or times out (pebble starts a task's timeout
only once a worker has taken it). A watchdog thread replaces a pool with tasks in flight once
pebble holds it broken (the queued tasks it will never answer fail as dropped), or once none of
them finished for :data:`STALL_FACTOR` times the longest task timeout (plus
:data:`STALL_GRACE_S`), which no healthy pool can do: every task it runs ends or is stopped
within its timeout. Pools that keep breaking,
:data:`MAX_RESTARTS` in a row with no task finished in between (workers that cannot start
here), raise :class:`RenderWorkersLost`, which stops a run instead of recording renders as
failed.

A task's time limit is CPU time (:func:`within_cpu_limit`: the kernel stops a worker that
spends more, ``SIGXCPU``): what an SVG costs, whatever else the machine is doing. Its wall-clock
limit, :data:`WALL_FACTOR` times longer, only catches a worker that gets no CPU (a machine loaded
far past its cores) or is stuck; on a heavily loaded machine, a wall-clock limit timed out
valid StarVector and VectorGym answers whose repair needed far less CPU than the limit, most of
it a first import (issue 43).

Each worker (:func:`start_worker`) limits its address space to ``memory_mb`` (at most the
limit the process runs under), writes no core file, and dies with the process that owns the pool, so a ``kill -9``
of ``svgeval`` leaves no worker rendering on: the forkserver hands every worker a copy of the
pipe whose closing tells the server its owner is gone, which the worker closes, so the server
exits with its owner; on Linux the kernel then kills the worker
(``prctl(PR_SET_PDEATHSIG, SIGKILL)``, no Python code involved, so even a render holding the
interpreter lock is stopped); elsewhere, or if the server lives on, a thread of the worker
watching the owner (multiprocessing's parent sentinel) exits it.
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import os
import resource
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import connection, forkserver, parent_process
from typing import Any, TypeVar

from pebble import ProcessExpired, ProcessPool

from svgeval.errors import UserError
from svgeval.render.forkserver import render_context

T = TypeVar("T")

MAX_RESTARTS = 3
"""Pools started in a row, none finishing a task, before the workers count as lost."""

WALL_FACTOR = 3.0
"""A task's wall-clock limit in times its CPU-time limit (module doc)."""

STALL_FACTOR = 3
"""A pool with tasks in flight that finished none for this many task timeouts is stuck."""

STALL_GRACE_S = 20.0
"""Seconds added to that wait (start-up of new workers on a loaded machine)."""

_PR_SET_PDEATHSIG = 1
"""``prctl`` option: the signal this process gets when its parent exits (linux/prctl.h)."""


class RenderWorkersLost(UserError):
    """The render workers cannot run here: svgeval's machinery failed, not an SVG."""

    @classmethod
    def after(cls, cause: BaseException) -> RenderWorkersLost:
        """The error once pools kept breaking, the last time with ``cause``."""
        return cls(f"the render worker processes keep failing ({cause}; {MAX_RESTARTS} new "
                   "pools in a row finished no render); finished samples are kept: check memory "
                   "and process limits, then continue with --resume")


def start_worker(memory_mb: int) -> None:
    """Initialise a render worker: its memory limit, no core file (a renderer that crashes or
    spends its CPU time leaves nothing on disk), death with its owner (module doc), the memory
    its renders free kept for the next ones (:func:`_keep_freed_memory`), and OpenCV on this
    worker's thread alone (:func:`one_opencv_thread`)."""
    _limit_memory(memory_mb)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    _die_with_owner()
    _keep_freed_memory()
    one_opencv_thread()


KEPT_FREED_BYTES = 64 * 1024 * 1024
"""Freed memory a render worker keeps for its next render instead of handing it back (glibc's
``M_TRIM_THRESHOLD``); blocks up to half of it are taken from that kept memory
(``M_MMAP_THRESHOLD``), not mapped afresh."""

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
"""``mallopt`` options (glibc's malloc.h)."""


def _keep_freed_memory() -> None:
    """Let glibc's malloc keep what a render frees for the next one (:data:`KEPT_FREED_BYTES`).

    By default a block of over 128 KiB is mapped from the kernel and handed back when freed,
    and the top of the heap is handed back once 128 KiB of it are free. glibc raises both limits
    when it frees a larger mapped block, yet a reward scored at 512 px, whose renders and image
    terms free several blocks of 1-3 MB each, still touched about 1 MB of fresh pages a
    completion, which made scoring slower than with the memory kept (``bench/RESULTS.md``).
    At 128 px nothing changes. Where there is no ``mallopt`` (not glibc), nothing
    is done."""
    if not sys.platform.startswith("linux"):
        return
    mallopt = getattr(ctypes.CDLL(None), "mallopt", None)
    if mallopt is not None:
        mallopt(_M_TRIM_THRESHOLD, KEPT_FREED_BYTES)
        mallopt(_M_MMAP_THRESHOLD, KEPT_FREED_BYTES // 2)


OPENCV_THREADS_VARIABLE = "OPENCV_FOR_THREADS_NUM"
"""OpenCV's own setting of its thread count: where the user's environment sets it, a render
worker leaves OpenCV to it."""


def one_opencv_thread() -> None:
    """Run OpenCV on this process's thread alone (in a render worker), unless the user's
    environment sets its thread count (:data:`OPENCV_THREADS_VARIABLE`).

    The pool already runs one worker a core, and OpenCV's own threads only compete with them:
    ``Canny`` at 128 px spent more CPU on two threads than on one, for no gain in wall time.
    The workers' server has imported OpenCV already
    (:data:`~svgeval.render.forkserver.COMMON_PRELOAD`), so the import costs a worker nothing,
    and no environment variable is written."""
    if OPENCV_THREADS_VARIABLE in os.environ:
        return
    import cv2

    cv2.setNumThreads(1)


def _limit_memory(memory_mb: int) -> None:
    """Cap the address space at ``memory_mb``, or at the hard limit if that is lower (a job
    scheduler's ``ulimit -v``), which an unprivileged process cannot raise."""
    limit = memory_mb * 1024 * 1024
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _die_with_owner() -> None:
    server = forkserver._forkserver  # this worker's copy of the server's "alive" pipe is in it
    alive = getattr(server, "_forkserver_alive_fd", None)
    if alive is not None:  # kept open here, it would keep the server alive after its owner
        os.close(alive)
        setattr(server, "_forkserver_alive_fd", None)  # noqa: B010 - a private attribute
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    owner = parent_process()
    if owner is None:
        return
    if connection.wait([owner.sentinel], timeout=0):  # the owner died before the prctl
        os._exit(1)
    threading.Thread(target=_exit_when_gone, args=(owner.sentinel,), daemon=True,
                     name="svgeval-owner-watch").start()


def _exit_when_gone(sentinel: int) -> None:
    connection.wait([sentinel])
    os._exit(1)


def within_cpu_limit(cpu_s: float, function: Callable[..., T], args: tuple[Any, ...]) -> T:
    """``function(*args)`` in this worker, stopped by the kernel (``SIGXCPU``, which ends the
    process) once it has spent ``cpu_s`` seconds of CPU time, rounded up to a whole second
    (``RLIMIT_CPU`` counts seconds); the limit the worker had is restored afterwards."""
    soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    limit = math.ceil(usage.ru_utime + usage.ru_stime + cpu_s)
    for bound in (soft, hard):
        if bound != resource.RLIM_INFINITY:
            limit = min(limit, bound)
    resource.setrlimit(resource.RLIMIT_CPU, (limit, hard))
    try:
        return function(*args)
    finally:
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def spent_its_cpu_time(error: BaseException | None) -> bool:
    """True for a worker the kernel stopped for spending its CPU time (:func:`within_cpu_limit`)."""
    return isinstance(error, ProcessExpired) and error.exitcode == -signal.SIGXCPU


def is_pool_loss(error: BaseException | None) -> bool:
    """True for the error of a task that a broken pool dropped (the machinery's, not the
    task's)."""
    return isinstance(error, BrokenProcessPool)


class WorkerPool:
    """``workers`` render processes (pebble, forkserver start), replaced when they break."""

    def __init__(self, workers: int, memory_mb: int) -> None:
        self.workers = workers
        self._memory_mb = memory_mb
        self._lock = threading.Lock()
        self._pool = self._new_pool()
        self._in_flight: dict[Future[Any], ProcessPool] = {}
        self._fruitless_restarts = 0
        self._lost: RenderWorkersLost | None = None
        self._closed = False
        self._longest_timeout_s = 0.0
        self._last_progress = time.monotonic()
        self.restarts = 0
        """Pools started after the first one broke."""
        threading.Thread(target=self._watch, name="svgeval-render-watchdog", daemon=True).start()

    def _new_pool(self) -> ProcessPool:
        return ProcessPool(max_workers=self.workers, initializer=start_worker,
                           initargs=(self._memory_mb,), context=render_context())

    def schedule(self, function: Callable[..., Any], args: tuple[Any, ...] = (),
                 timeout: float | None = None) -> Future[Any]:
        """``function(*args)`` in a worker within ``timeout`` seconds of CPU time and
        :data:`WALL_FACTOR` times as many of wall time (module doc); a broken pool is replaced
        first. Raises :class:`RenderWorkersLost` when pools keep breaking."""
        if timeout is not None:
            function, args = within_cpu_limit, (timeout, function, args)
            timeout *= WALL_FACTOR
        while True:
            with self._lock:  # no pool is replaced while a task is handed to it
                if self._lost is not None:
                    raise self._lost
                if self._closed:
                    raise RuntimeError("the render pool is closed")
                pool = self._pool
                try:
                    future: Future[Any] = pool.schedule(function, args=args, timeout=timeout)
                except RuntimeError as error:  # pebble refuses work once its pool is broken
                    refused: RuntimeError | None = error
                else:
                    refused = None
                    if not self._in_flight:
                        self._last_progress = time.monotonic()  # the wait starts now
                    self._in_flight[future] = pool
                    self._longest_timeout_s = max(self._longest_timeout_s, timeout or 0.0)
            if refused is None:
                future.add_done_callback(self._finished)
                return future
            self._restart(pool, refused)

    def _finished(self, future: Future[Any]) -> None:
        self._in_flight.pop(future, None)
        self._last_progress = time.monotonic()
        if not future.cancelled() and not is_pool_loss(future.exception()):
            self._fruitless_restarts = 0

    def stalled(self, now: float) -> bool:
        """True when tasks are in flight and none finished for longer than any task may take."""
        if not self._in_flight or self._longest_timeout_s <= 0:
            return False
        limit = STALL_FACTOR * self._longest_timeout_s + STALL_GRACE_S
        return now - self._last_progress > limit

    def _watch(self) -> None:
        """Replace a broken or stuck pool (see module doc); its dropped tasks are scheduled
        again."""
        while not self._closed and self._lost is None:
            time.sleep(1.0)
            pool = self._pool
            if self._in_flight and not pool.active:
                cause = BrokenProcessPool("the render pool broke with tasks in its queue")
            elif self.stalled(time.monotonic()):
                cause = BrokenProcessPool("the render pool stopped finishing tasks")
            else:
                continue
            self._last_progress = time.monotonic()
            with contextlib.suppress(RenderWorkersLost):  # its callers see it on retry
                self._restart(pool, cause)

    def _restart(self, broken: ProcessPool, cause: BaseException) -> None:
        """Replace ``broken`` with a new pool, unless another thread already did; give up
        (:class:`RenderWorkersLost`) after MAX_RESTARTS fruitless pools."""
        with self._lock:
            if self._pool is not broken or self._closed or self._lost is not None:
                return
            if self._fruitless_restarts >= MAX_RESTARTS:
                self._lost = RenderWorkersLost.after(cause)
            else:
                self._fruitless_restarts += 1
                self.restarts += 1
                self._pool = self._new_pool()
        self._end(broken, finish=False)
        if self._lost is not None:
            raise self._lost

    def _end(self, pool: ProcessPool, finish: bool) -> None:
        """End ``pool``'s workers (after its scheduled tasks if ``finish``); a task it never
        ran (pebble leaves the tasks it had not yet taken up unanswered) fails as dropped by a
        broken pool, which its caller may schedule again."""
        if finish:
            pool.close()  # type: ignore[no-untyped-call]
            pool.join()
        else:
            pool.stop()  # type: ignore[no-untyped-call]
            with contextlib.suppress(TimeoutError):  # a stuck pool's thread may never end
                pool.join(timeout=STALL_GRACE_S)
        dropped = [future for future, owner in list(self._in_flight.items()) if owner is pool]
        for future in dropped:
            if not future.done():
                future.set_exception(BrokenProcessPool("the render pool ended before this task"))

    def close(self) -> None:
        """Finish the tasks scheduled, then end the workers."""
        with self._lock:
            self._closed = True
        self._end(self._pool, finish=True)

    def stop(self) -> None:
        """End the workers now, dropping what they were doing."""
        with self._lock:
            self._closed = True
        self._end(self._pool, finish=False)

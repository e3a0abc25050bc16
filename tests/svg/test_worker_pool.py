"""Render workers that cannot run here raise RenderWorkersLost (svgeval's failure, never a
render's) after a few new pools, instead of failing every render."""

from __future__ import annotations

import contextlib
import os
import time
from concurrent.futures.process import BrokenProcessPool

import pytest
from pebble import ProcessPool
from worker_processes import exit_at_start

from svgeval.svg.forkserver import render_context
from svgeval.svg.worker_pool import MAX_RESTARTS, RenderWorkersLost, WorkerPool


class DeadWorkers(WorkerPool):
    """A pool whose worker processes end as they start (they cannot run here)."""

    def _new_pool(self) -> ProcessPool:
        return ProcessPool(max_workers=self.workers, initializer=exit_at_start,
                           context=render_context())


def test_workers_that_cannot_start_raise_render_workers_lost() -> None:
    pool = DeadWorkers(workers=1, memory_mb=512)
    started = time.monotonic()
    with pytest.raises(RenderWorkersLost, match="keep failing"):
        for _ in range(20):  # as the renderer does: a task a broken pool dropped is sent again
            with contextlib.suppress(BrokenProcessPool):
                pool.schedule(os.getpid).result(timeout=30)
    # gives up instead of hanging: 20 tasks waiting 30 s each would take 600 s
    assert pool.restarts == MAX_RESTARTS and time.monotonic() - started < 120
    with pytest.raises(RenderWorkersLost):
        pool.schedule(os.getpid)  # given up: no new pools
    pool.stop()

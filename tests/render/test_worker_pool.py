"""Render workers that cannot run here raise RenderWorkersLost (svgeval's failure, never a
render's) after a few new pools, instead of failing every render; a pool that stopped taking
tasks is replaced instead of waiting forever."""

from __future__ import annotations

import contextlib
import os
import time
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest
from pebble import ProcessPool
from pebble.pool.base_pool import PoolStatus
from support.worker_processes import exit_at_start, hang_at_start_once

from svgeval.render.forkserver import render_context
from svgeval.render.pool import MAX_RESTARTS, RenderWorkersLost, WorkerPool


class DeadWorkers(WorkerPool):
    """A pool whose worker processes end as they start (they cannot run here)."""

    def _new_pool(self) -> ProcessPool:
        return ProcessPool(max_workers=self.workers, initializer=exit_at_start,
                           context=render_context())


class StuckOnce(WorkerPool):
    """One worker; the first pool's never takes a task (nor does a task of it time out): the
    file ``marker`` does not exist yet."""

    def __init__(self, marker: str) -> None:
        self.marker = marker
        super().__init__(workers=1, memory_mb=512)

    def _new_pool(self) -> ProcessPool:
        return ProcessPool(max_workers=self.workers, initializer=hang_at_start_once,
                           initargs=(self.marker,), context=render_context())


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


@pytest.mark.e2e
def test_a_pool_whose_workers_take_no_task_is_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("svgeval.render.pool.STALL_FACTOR", 1)
    monkeypatch.setattr("svgeval.render.pool.STALL_GRACE_S", 1.0)
    pool = StuckOnce(str(tmp_path / "hung-once"))
    stuck = pool.schedule(os.getpid, timeout=1)
    with pytest.raises(BrokenProcessPool):  # dropped by the replaced pool: the caller sends it again
        stuck.result(timeout=60)
    assert pool.restarts == 1
    assert pool.schedule(os.getpid, timeout=1).result(timeout=60) > 0
    pool.stop()


@pytest.mark.e2e
def test_a_task_left_unanswered_by_a_broken_pool_is_dropped(tmp_path: Path) -> None:
    """pebble breaks a pool whose workers all died while no task ran ("All workers expired")
    by setting its status to ERROR, which ends its threads: a task still in its queue is never
    answered, and without a timeout no stall is ever seen. Here the first pool's worker never
    takes the task, and the pool is then marked broken as pebble's ``handle_broken_pool``
    marks it."""
    pool = StuckOnce(str(tmp_path / "hung-once"))
    queued = pool.schedule(os.getpid)  # no timeout: only the broken status can free it
    pool._pool._context.status = PoolStatus.ERROR
    with pytest.raises(BrokenProcessPool):  # dropped: the caller sends it again
        queued.result(timeout=30)
    assert pool.restarts == 1
    assert pool.schedule(os.getpid, timeout=5).result(timeout=60) > 0
    pool.stop()

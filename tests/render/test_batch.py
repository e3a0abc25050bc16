"""Renders asked for at the same time travel to the workers in chunks; a chunk that dies is
retried one SVG per call, one a broken pool dropped is sent again whole."""

from __future__ import annotations

import threading
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import numpy as np
import pytest
from pebble import ProcessExpired

from svgeval.render.batch import RenderBatcher, render_chunk
from svgeval.render.cairo import RenderSpec
from svgeval.render.picture import Picture, RenderFailure
from svgeval.render.pool import MAX_RESTARTS, RenderWorkersLost

SPEC = RenderSpec.square(2)


def _draw(svg: str | bytes, spec: RenderSpec) -> np.ndarray:
    if svg == "bad":
        raise ValueError("not an SVG")
    return np.full((spec.height, spec.width, 3), int(svg), dtype=np.uint8)


class HeldPool:
    """A stand-in for the worker pool's ``schedule``: records each chunk and runs it in this
    process once the test releases it (or fails it as a hung chunk would)."""

    def __init__(self, hang_on: str | None = None) -> None:
        self.chunks: list[list[str]] = []
        self.release = threading.Event()
        self.hang_on = hang_on

    def schedule(self, function: Any, args: tuple[Any, ...], timeout: float) -> Future[Any]:
        items, draw = args
        self.chunks.append([svg for svg, _ in items])
        future: Future[Any] = Future()

        def finish() -> None:
            self.release.wait()
            if self.hang_on in [svg for svg, _ in items]:
                future.set_exception(TimeoutError("hung"))
            else:
                future.set_result(function(items, draw))

        threading.Thread(target=finish, daemon=True).start()
        return future


def test_requests_made_while_the_worker_is_busy_travel_together() -> None:
    pool = HeldPool()
    batcher = RenderBatcher(pool.schedule, workers=1, timeout_s=5.0, function=_draw)
    futures = [batcher.submit(str(value), SPEC) for value in range(20)]
    pool.release.set()
    results = [future.result(timeout=30) for future in futures]
    batcher.close()
    assert [int(r.pixels[0, 0, 0]) for r in results] == list(range(20))  # type: ignore[union-attr]
    # the first chunk leaves with what was queued when it left (1 to 8); the rest queue behind it
    assert 3 <= len(pool.chunks) <= 4 and all(len(chunk) <= 8 for chunk in pool.chunks)
    assert sorted(svg for chunk in pool.chunks for svg in chunk) == sorted(map(str, range(20)))


def test_a_dead_chunk_is_retried_one_svg_per_call() -> None:
    pool = HeldPool(hang_on="7")
    batcher = RenderBatcher(pool.schedule, workers=1, timeout_s=5.0, function=_draw)
    futures = [batcher.submit(svg, SPEC) for svg in ("1", "7", "bad", "3")]
    pool.release.set()
    results = [future.result(timeout=30) for future in futures]
    batcher.close()
    assert isinstance(results[1], RenderFailure) and results[1].kind == "timeout"
    assert isinstance(results[2], RenderFailure) and "not an SVG" in results[2].message
    assert [int(results[i].pixels[0, 0, 0]) for i in (0, 3)] == [1, 3]  # type: ignore[union-attr]
    assert ["7"] in pool.chunks  # retried alone after its chunk hung


def test_render_chunk_turns_each_error_into_that_svgs_failure() -> None:
    out = render_chunk([("1", SPEC), ("bad", SPEC)], _draw)
    assert isinstance(out[0], Picture) and isinstance(out[1], RenderFailure)


def test_a_pool_that_cannot_take_work_raises_instead_of_recording_failures() -> None:
    """No worker can draw: the machinery failed, so the renders raise (promptly) instead of
    becoming the SVGs' failures."""
    def broken(function: Any, args: tuple[Any, ...], timeout: float) -> Future[Any]:
        raise RenderWorkersLost("the render worker processes keep failing")

    batcher = RenderBatcher(broken, workers=1, timeout_s=5.0, function=_draw)
    futures = [batcher.submit(str(value), SPEC) for value in range(3)]
    for future in futures:
        with pytest.raises(RenderWorkersLost, match="keep failing"):
            future.result(timeout=30)
    batcher.close()


class DroppingPool(HeldPool):
    """Fails the first ``drops`` chunks as pebble fails the tasks of a pool that broke
    (``BrokenProcessPool``), or as a worker killed mid-render (``ProcessExpired``)."""

    def __init__(self, drops: int, error: BaseException) -> None:
        super().__init__()
        self.drops, self.error = drops, error
        self.release.set()

    def schedule(self, function: Any, args: tuple[Any, ...], timeout: float) -> Future[Any]:
        if self.drops == 0:
            return super().schedule(function, args, timeout)
        self.drops -= 1
        self.chunks.append([svg for svg, _ in args[0]])
        future: Future[Any] = Future()
        future.set_exception(self.error)
        return future


def test_a_chunk_a_broken_pool_dropped_is_sent_again_whole() -> None:
    pool = DroppingPool(drops=2, error=BrokenProcessPool("All workers expired"))
    batcher = RenderBatcher(pool.schedule, workers=1, timeout_s=5.0, function=_draw)
    futures = [batcher.submit(str(value), SPEC) for value in range(3)]
    pool_results = [future.result(timeout=30) for future in futures]
    batcher.close()
    assert [int(r.pixels[0, 0, 0]) for r in pool_results] == [0, 1, 2]  # type: ignore[union-attr]
    assert all(len(chunk) > 1 for chunk in pool.chunks)  # never split up: not the SVGs' doing


def test_a_chunk_pools_keep_dropping_raises_render_workers_lost() -> None:
    pool = DroppingPool(drops=100, error=BrokenProcessPool("All workers expired"))
    batcher = RenderBatcher(pool.schedule, workers=1, timeout_s=5.0, function=_draw)
    with pytest.raises(RenderWorkersLost, match="keep failing .All workers expired"):
        batcher.submit("1", SPEC).result(timeout=30)
    batcher.close()
    assert len(pool.chunks) == MAX_RESTARTS + 1


def test_a_lone_render_whose_worker_died_is_drawn_once_more() -> None:
    killed = DroppingPool(drops=1, error=ProcessExpired("Abnormal termination", code=-9))
    batcher = RenderBatcher(killed.schedule, workers=1, timeout_s=5.0, function=_draw)
    assert int(batcher.submit("5", SPEC).result(timeout=30).pixels[0, 0, 0]) == 5  # type: ignore[union-attr]
    batcher.close()
    crasher = DroppingPool(drops=2, error=ProcessExpired("Abnormal termination", code=-11))
    batcher = RenderBatcher(crasher.schedule, workers=1, timeout_s=5.0, function=_draw)
    result = batcher.submit("5", SPEC).result(timeout=30)
    batcher.close()
    assert isinstance(result, RenderFailure) and result.kind == "crash"
    assert crasher.chunks == [["5"], ["5"]]

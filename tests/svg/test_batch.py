"""Renders asked for at the same time travel to the workers in chunks; a chunk that dies is
retried one SVG per call."""

from __future__ import annotations

import threading
from concurrent.futures import Future
from typing import Any

import numpy as np

from svgeval.svg.batch import RenderBatcher, render_chunk
from svgeval.svg.render import RenderFailure, RenderSpec

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
    assert [int(r[0, 0, 0]) for r in results] == list(range(20))  # type: ignore[index]
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
    assert [int(results[i][0, 0, 0]) for i in (0, 3)] == [1, 3]  # type: ignore[index]
    assert ["7"] in pool.chunks  # retried alone after its chunk hung


def test_render_chunk_turns_each_error_into_that_svgs_failure() -> None:
    out = render_chunk([("1", SPEC), ("bad", SPEC)], _draw)
    assert isinstance(out[0], np.ndarray) and isinstance(out[1], RenderFailure)


def test_a_pool_that_cannot_take_work_fails_the_renders_instead_of_hanging() -> None:
    def broken(function: Any, args: tuple[Any, ...], timeout: float) -> Future[Any]:
        raise RuntimeError("Unexpected error within the Pool")

    batcher = RenderBatcher(broken, workers=1, timeout_s=5.0, function=_draw)
    results = [batcher.submit(str(value), SPEC).result(timeout=30) for value in range(3)]
    batcher.close()
    assert all(isinstance(r, RenderFailure) and r.kind == "crash" for r in results)
    assert all("Unexpected error within the Pool" in r.message for r in results)  # type: ignore[union-attr]

"""The render pool outlives what kills its workers: ``kill -9`` of a real worker process, as the
OOM killer does, changes no render."""

from __future__ import annotations

import os
import signal
import time

import numpy as np
import pytest
from support.worker_processes import alive, cpu_seconds, idle, render_workers, wait_for

from svgeval.metrics.pss import pss
from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.render.picture import Picture, RenderFailure
from svgeval.svg.demo_corpus import DEMO_ICONS, demo_svg

pytestmark = pytest.mark.e2e  # see the marker in pyproject.toml

SPEC = RenderSpec.square(48)
ICONS = [demo_svg(name) for name in DEMO_ICONS]
PATHS = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"><path d="{d}" fill="#f00"/></svg>'
         for d in ("M1 1H7V7H1Z", "M2 1H7V6H2Z")]


def _kill_one_idle_worker(started_before: set[int]) -> int:
    """SIGKILL an idle worker started after ``started_before`` and wait until it is gone and
    pebble (which polls every 0.1 s) has seen it."""
    mine = [pid for pid in render_workers() if pid not in started_before]
    assert wait_for(lambda: any(idle(pid) for pid in mine), 10)
    victim = next(pid for pid in mine if idle(pid))
    os.kill(victim, signal.SIGKILL)
    assert wait_for(lambda: not alive(victim), 10)
    time.sleep(0.5)
    return victim


def test_killing_an_idle_worker_of_an_idle_pool_changes_no_render() -> None:
    """pebble breaks the whole pool when a worker dies while no task runs ("All workers
    expired"); the renderer starts a new pool and draws every SVG as an undisturbed one."""
    with Renderer(workers=2) as undisturbed:
        expected = [undisturbed.render(svg, SPEC).pixels for svg in ICONS]  # type: ignore[union-attr]
        expected_pss = undisturbed.call(pss, *PATHS)
    before = set(render_workers())
    with Renderer(workers=2) as pool:
        assert isinstance(pool.render(ICONS[0], RenderSpec.square(8)), Picture)  # up, then idle
        _kill_one_idle_worker(before)
        outcomes = [pool.render(svg, SPEC) for svg in ICONS]
        assert all(isinstance(o, Picture) and np.array_equal(o.pixels, e)
                   for o, e in zip(outcomes, expected))
        _kill_one_idle_worker(before)
        assert pool.call(pss, *PATHS) == expected_pss
        assert not isinstance(expected_pss, RenderFailure)


def test_a_worker_killed_in_the_middle_of_a_render_costs_only_a_retry() -> None:
    """A busy worker killed from outside: its render is drawn again, not recorded as a crash;
    killed again, the render counts as the SVG's crash."""
    from support.crashers import segfault_on_marker

    spinning = ICONS[0].replace("<circle", "<desc>SPIN</desc><circle")  # 3 s of CPU, then drawn
    before = set(render_workers())
    killed: set[int] = set()

    def kill_the_worker_drawing() -> None:
        assert wait_for(lambda: [p for p in render_workers() if p not in before | killed], 10)
        (worker,) = [p for p in render_workers() if p not in before | killed]
        assert wait_for(lambda: cpu_seconds(worker) > 0.3, 30)  # it is drawing
        os.kill(worker, signal.SIGKILL)
        killed.add(worker)

    with Renderer(workers=1, timeout_s=60.0, render_function=segfault_on_marker) as pool:
        expected = pool.render(ICONS[0], SPEC).pixels  # type: ignore[union-attr]
        retried = pool.submit(spinning, SPEC)
        kill_the_worker_drawing()
        assert np.array_equal(retried.result(timeout=30).pixels, expected)  # type: ignore[union-attr]
        crashed = pool.submit(spinning, SPEC)
        kill_the_worker_drawing()
        kill_the_worker_drawing()
        assert getattr(crashed.result(timeout=30), "kind", None) == "crash"

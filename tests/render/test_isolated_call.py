"""Renderer.call: any function that renders untrusted SVG runs under the render isolation."""

from __future__ import annotations

import sys

import pytest
from support.crashers import segfault_on_marker
from support.worker_processes import page_faults_of_freed_renders

from svgeval.metrics.pss import pss
from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.render.picture import RenderFailure

NS = 'xmlns="http://www.w3.org/2000/svg"'
SQUARE = f'<svg {NS} viewBox="0 0 8 8" width="8" height="8"><path d="M1 1H7V7H1Z" fill="#f00"/></svg>'


def test_a_metric_runs_in_a_worker_and_returns_its_value(renderer: Renderer) -> None:
    assert renderer.call(pss, SQUARE, SQUARE) == pytest.approx(1.0)


def test_opencv_runs_on_one_thread_in_a_render_worker(renderer: Renderer) -> None:
    import cv2

    assert renderer.call(cv2.getNumThreads) == 1


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_a_render_worker_keeps_freed_memory_for_its_next_render(renderer: Renderer) -> None:
    faults = renderer.call(page_faults_of_freed_renders)
    # about 30,000 page faults where freed blocks go back to the kernel
    assert isinstance(faults, int) and faults < 1_000


@pytest.mark.e2e
def test_crash_and_hang_of_a_called_function_are_failures() -> None:
    spec = RenderSpec.square(8)
    with Renderer(workers=1, timeout_s=1.0) as pool:
        crash = pool.call(segfault_on_marker, SQUARE.replace("<path", "<!--CRASH--><path"), spec)
        assert isinstance(crash, RenderFailure) and crash.kind == "crash"
        hang = pool.call(segfault_on_marker, SQUARE.replace("<path", "<desc>HANG</desc><path"),
                         spec)
        assert isinstance(hang, RenderFailure) and hang.kind == "timeout"
        fine = pool.call(segfault_on_marker, SQUARE, spec)
        assert not isinstance(fine, RenderFailure) and fine.shape == (8, 8, 3)

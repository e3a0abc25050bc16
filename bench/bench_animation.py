"""Animated SVG in headless Chromium: browser start-up and frames per second at 448x448.

    .venv/bin/python bench/bench_animation.py [--runs 3]

Per run, a fresh :class:`BrowserRenderer` (one worker) draws InternSVG's protocol, 150 frames of
448x448 (t = i/30 for 5 s), of an SVG with CSS and SMIL animations. Side by side, the floors:
the same frames from a :class:`BrowserSession` in this process (no checks, no worker, no pipe),
and the browser alone, 150 ``Page.captureScreenshot`` of the loaded page with no seeking and no
PNG decoding. Also timed: writing and reading back the 150 frames as InternSVG's MP4.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

from svgeval.render.animation import AnimationSpec, BrowserRenderer, check_browser
from svgeval.render.browser_policy import browser_document
from svgeval.render.browser_session import BrowserSession
from svgeval.render.video import through_codec

SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 200"><style>@keyframes spin { to {'
    " transform: rotate(360deg) } } g { transform-origin: 100px 100px; animation: spin 3s "
    'ease-in-out infinite }</style><g><rect x="90" y="20" width="20" height="60" fill="#e33"/>'
    '<circle cx="100" cy="150" r="20" fill="#36c"/></g><path d="M150 150 l20 0 l-10 20z" '
    'fill="green"><animateTransform attributeName="transform" type="rotate" from="0 160 160" '
    'to="360 160 160" dur="2.2s" repeatCount="indefinite"/><animate attributeName="fill" '
    'values="green;orange;purple" dur="1.7s" repeatCount="indefinite"/></path><text x="10" '
    'y="20" font-size="14">Hello<animate attributeName="x" values="10;100;10" dur="2s" '
    'repeatCount="indefinite"/></text></svg>'
)
SPEC = AnimationSpec()


def renderer_run() -> tuple[float, float, float]:
    """(seconds to the first frame of a new renderer, browser start as the worker saw it,
    frames/s of the 150-frame animation)."""
    started = time.perf_counter()
    with BrowserRenderer(timeout_s=300) as renderer:
        first_frame = renderer.animate(SVG, AnimationSpec(duration_s=1 / 30))
        assert first_frame.ok, first_frame.failure
        first = time.perf_counter() - started
        started = time.perf_counter()
        outcome = renderer.animate(SVG, SPEC)
        elapsed = time.perf_counter() - started
        assert outcome.frames is not None, outcome.failure
        assert outcome.frames.shape == (150, 448, 448, 3)
        return first, renderer.start_seconds[0], 150 / elapsed


def floors(session: BrowserSession) -> tuple[float, float]:
    """(frames/s of BrowserSession.frames in this process, screenshots/s of the browser alone)."""
    document = browser_document(SVG)
    started = time.perf_counter()
    session.frames(document, SPEC.page, SPEC.times)
    in_process = 150 / (time.perf_counter() - started)
    started = time.perf_counter()
    for _ in range(150):
        session._cdp("Page.captureScreenshot", format="png", optimizeForSpeed=True)
    return in_process, 150 / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs
    paths = check_browser()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, load average {os.getloadavg()[0]:.1f} at start")
    results = [renderer_run() for _ in range(runs)]
    with tempfile.TemporaryDirectory() as profile:
        session = BrowserSession(paths, Path(profile), sandbox=os.geteuid() != 0)
        try:
            floor = [floors(session) for _ in range(runs)]
        finally:
            session.close()
    with BrowserRenderer() as renderer:
        frames = renderer.animate(SVG, SPEC).frames
    assert frames is not None
    started = time.perf_counter()
    through_codec(frames)
    codec = time.perf_counter() - started
    for name, values in (
        ("new renderer to first frame (s)", [r[0] for r in results]),
        ("browser start in the worker (s)", [r[1] for r in results]),
        ("BrowserRenderer.animate, 448 px (frames/s)", [r[2] for r in results]),
        ("floor: BrowserSession.frames in process (frames/s)", [f[0] for f in floor]),
        ("floor: captureScreenshot alone (frames/s)", [f[1] for f in floor]),
    ):
        shown = ", ".join(f"{value:.2f}" for value in values)
        print(f"{name}: {shown} (median {statistics.median(values):.2f})")
    print(f"MP4 write + read of 150 frames: {codec:.2f} s")
    print(f"load average {os.getloadavg()[0]:.1f} at end")


if __name__ == "__main__":
    main()

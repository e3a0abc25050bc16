"""Animated SVG in headless Chromium: browser start-up and frames per second at 448x448.

    python -m bench animation [--set runs=3]

Per run, a fresh :class:`BrowserRenderer` (one worker) draws InternSVG's protocol, 150 frames of
448x448 (t = i/30 for 5 s), of an SVG with CSS and SMIL animations. Side by side, the floors:
the same frames from a :class:`BrowserSession` in this process (no checks, no worker, no pipe),
and the browser alone, 150 ``Page.captureScreenshot`` of the loaded page with no seeking and no
PNG decoding (the floor of each figure). Also timed: writing and reading back the 150 frames as
InternSVG's MP4. Needs Chromium and chromedriver (``make browser``) and the ``browser`` and
``video`` extras; skipped without them.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from bench.measure import Figures, Scale, Skipped, load, needs, seconds_of

if TYPE_CHECKING:
    from svgeval.render.animation import AnimationSpec
    from svgeval.render.browser_session import BrowserSession

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
FRAMES = 150


def renderer_run(frames: int) -> tuple[float, float, float]:
    """(seconds to the first frame of a new renderer, browser start as the worker saw it,
    frames/s of the 150-frame animation)."""
    from svgeval.render.animation import AnimationSpec, BrowserRenderer
    from svgeval.render.picture import RenderFailure

    started = time.perf_counter()
    with BrowserRenderer(timeout_s=300) as renderer:
        first_frame = renderer.animate(SVG, AnimationSpec(duration_s=1 / 30))
        assert not isinstance(first_frame, RenderFailure), first_frame
        first = time.perf_counter() - started
        started = time.perf_counter()
        drawn = renderer.animate(SVG, spec(frames))
        elapsed = time.perf_counter() - started
        assert not isinstance(drawn, RenderFailure), drawn
        assert drawn.shape == (frames, 448, 448, 3)
        return first, renderer.start_seconds[0], frames / elapsed


def spec(frames: int) -> AnimationSpec:
    """InternSVG's protocol at 30 frames/s, ``frames`` of them (150: 5 s)."""
    from svgeval.render.animation import AnimationSpec

    return AnimationSpec(duration_s=frames / 30)


def floors(session: BrowserSession, frames: int) -> tuple[float, float]:
    """(frames/s of BrowserSession.frames in this process, screenshots/s of the browser alone)."""
    from svgeval.render.browser_policy import browser_document

    document, protocol = browser_document(SVG), spec(frames)
    in_process = frames / seconds_of(lambda: session.frames(document, protocol.page,
                                                            protocol.times))
    started = time.perf_counter()
    for _ in range(frames):
        session._cdp("Page.captureScreenshot", format="png", optimizeForSpeed=True)
    return in_process, frames / (time.perf_counter() - started)


def run(scale: Scale) -> Figures:
    needs("selenium", "imageio_ffmpeg", extra='pip install -e ".[browser,video]"')
    from svgeval.render.animation import BrowserRenderer, BrowserUnavailable, check_browser
    from svgeval.render.browser_session import BrowserSession
    from svgeval.render.picture import RenderFailure
    from svgeval.render.video import through_codec

    runs, frames = scale.pick("runs", 3, 1), scale.pick("frames", FRAMES, 4)
    try:
        paths = check_browser()
    except BrowserUnavailable as error:
        raise Skipped(f"needs a browser: {error}") from None
    figures = Figures()
    figures.note(f"load average {load()} at the start; {frames} frames at 448 px")
    results = [renderer_run(frames) for _ in range(runs)]
    with tempfile.TemporaryDirectory() as profile:
        session = BrowserSession(paths, Path(profile), sandbox=os.geteuid() != 0)
        try:
            floor = [floors(session, frames) for _ in range(runs)]
        finally:
            session.close()
    with BrowserRenderer() as renderer:
        drawn = renderer.animate(SVG, spec(frames))
    assert not isinstance(drawn, RenderFailure), drawn
    screenshots = statistics.median(f[1] for f in floor)
    alone = "captureScreenshot alone, median"
    figures.add("BrowserRenderer.animate (median)", statistics.median(r[2] for r in results),
                "frames/s", screenshots, alone)
    figures.add("BrowserSession.frames in process (median)",
                statistics.median(f[0] for f in floor), "frames/s", screenshots, alone)
    figures.add("new renderer to first frame (median)", statistics.median(r[0] for r in results),
                "s", statistics.median(r[1] for r in results), "browser start in the worker")
    figures.note(f"MP4 write + read of {frames} frames: {seconds_of(lambda: through_codec(drawn)):.2f} s")
    figures.note(f"load average {load()} at the end")
    return figures

"""Animated SVG in headless Chromium: frame times, layout, determinism, time limit, start-up.

Expected pixel columns are computed by hand: a 10-unit square moving ``x: 0 -> 90`` over 1 s in a
100-unit viewBox drawn at 448 px spans ``[4.48 x, 4.48 (x + 10))`` px at ``x = 90 (t mod 1)``; a
column counts as red when the square covers more than 1 - 60/255 of it (its green and blue are
then below 60 on white).
"""

from __future__ import annotations

import base64
import hashlib
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray
from support.hostile import red_png
from support.witnesses import live_processes, wait_until_gone

from svgeval.render.animation import (
    AnimationSpec,
    BrowserRenderer,
    BrowserUnavailable,
    PageSpec,
    check_browser,
)
from svgeval.render.cairo import RenderSpec
from svgeval.render.picture import Picture, RenderFailure

NS = 'xmlns="http://www.w3.org/2000/svg"'
SQUARE = '<rect width="10" height="10" fill="red">{animation}</rect>'
SMIL = (f'<svg {NS} viewBox="0 0 100 100">'
        + SQUARE.format(animation='<animate attributeName="x" from="0" to="90" dur="1s" '
                                  'repeatCount="indefinite"/>') + "</svg>")
CSS = (f'<svg {NS} viewBox="0 0 100 100"><style>@keyframes move {{ from {{ transform: '
       "translateX(0) } to { transform: translateX(90px) } } rect { animation: move 1s linear "
       'infinite }</style>' + SQUARE.format(animation="") + "</svg>")
RED_PNG = "data:image/png;base64," + base64.b64encode(red_png()).decode()
TIMES = (0.0, 1 / 30, 0.25, 0.5, 29 / 30, 1.25)
BUSY = (f'<svg {NS} viewBox="0 0 200 200"><style>@keyframes spin {{ to {{ transform: '
        "rotate(360deg) } } g { transform-origin: 100px 100px; animation: spin 3s ease-in-out "
        '.4s infinite }</style><g><rect x="90" y="20" width="20" height="60" fill="#e33"/></g>'
        '<path d="M150 150 l20 0 l-10 20z" fill="green"><animateTransform attributeName='
        '"transform" type="rotate" from="0 160 160" to="360 160 160" dur="2.2s" begin="0.3s" '
        'repeatCount="indefinite"/><animate attributeName="fill" values="green;orange;purple" '
        'dur="1.7s" repeatCount="indefinite"/></path><text x="10" y="20">Hi<animate '
        'attributeName="x" values="10;100;10" dur="2s" repeatCount="indefinite"/></text></svg>')


def expected_columns(t: float, size: int = 448) -> tuple[int, int]:
    scale = size / 100
    left = scale * 90 * (t % 1)
    right = left + scale * 10
    threshold = 1 - 60 / 255
    columns = [c for c in range(size) if min(c + 1, right) - max(c, left) > threshold]
    return columns[0], columns[-1]


def red_columns(frame: NDArray[np.uint8]) -> tuple[int, int] | None:
    red = (frame[..., 0] > 200) & (frame[..., 1] < 60) & (frame[..., 2] < 60)
    columns = np.flatnonzero(red.any(axis=0))
    return (int(columns[0]), int(columns[-1])) if columns.size else None


def digest(frames: NDArray[np.uint8]) -> str:
    return hashlib.sha256(frames.tobytes()).hexdigest()


def test_the_default_spec_is_internsvgs_150_frames_at_i_over_30() -> None:
    spec = AnimationSpec()
    assert (spec.width, spec.height, len(spec.times)) == (448, 448, 150)
    assert spec.times[:3] == (0.0, 1 / 30, 2 / 30) and spec.times[-1] == 149 / 30


@pytest.mark.parametrize("svg", [SMIL, CSS], ids=["smil", "css"])
def test_smil_and_css_frames_are_drawn_at_their_exact_times(
    browser_renderer: BrowserRenderer, svg: str
) -> None:
    outcome = browser_renderer.frames(svg, PageSpec(), TIMES)
    assert not isinstance(outcome, RenderFailure) and outcome.shape == (len(TIMES), 448, 448, 3)
    assert [red_columns(frame) for frame in outcome] == [expected_columns(t) for t in TIMES]
    assert expected_columns(0.25) == (101, 144) and expected_columns(0.5) == (202, 245)


def test_smil_is_seeked_in_a_document_that_holds_an_image(
    browser_renderer: BrowserRenderer,
) -> None:
    # Chromium's paused virtual time stops setCurrentTime in such documents; it is not used
    image = f'<image href="{RED_PNG}" x="0" y="50" width="50" height="50"/>'
    svg = SMIL.replace("<rect", image + "<rect")
    outcome = browser_renderer.frames(svg, PageSpec(), (0.25, 0.5))
    assert not isinstance(outcome, RenderFailure)
    assert [red_columns(frame[:40]) for frame in outcome] == [(101, 144), (202, 245)]
    assert outcome[0, 300, 100].tolist() == [255, 0, 0]  # the data: image is drawn


def test_two_loads_give_byte_identical_frames(browser_renderer: BrowserRenderer) -> None:
    times = [index / 30 for index in range(0, 150, 13)]
    first = browser_renderer.frames(BUSY, PageSpec(), times)
    time.sleep(0.3)
    second = browser_renderer.frames(BUSY, PageSpec(), times)
    assert not isinstance(first, RenderFailure) and not isinstance(second, RenderFailure)
    assert digest(first) == digest(second)
    assert len({digest(frame) for frame in first}) == len(times)  # it does move


PULSE = (f'<svg {NS} viewBox="0 0 36 36"><g transform="translate(18 18)"><g><animateTransform '
         'attributeName="transform" type="scale" values="0.8;1.1;0.8" dur="1.5s" '
         'repeatCount="indefinite"/><path transform="translate(-18 -18)" fill="#DD2E44" '
         'd="M18 33S3 23 3 13a7.5 7.5 0 0 1 15-2 7.5 7.5 0 0 1 15 2c0 10-15 20-15 20z"/></g></g>'
         '</svg>')


def test_the_second_frame_does_not_depend_on_how_long_the_page_ran_before_it(
        browser_renderer: BrowserRenderer) -> None:
    """The conformance test's finding (SArena's FVD of the same answers moving between runs):
    left running while the page was normalised, a scaling animation drew its frame at 1/30 s
    one of two ways (3 loads in 16 differed by up to 25 levels); paused at 0 on load, 0 in 40."""
    loads = [browser_renderer.frames(PULSE, PageSpec(128, 128), [0.0, 1 / 30, 2 / 30])
             for _ in range(40)]
    assert all(not isinstance(load, RenderFailure) for load in loads)
    assert len({digest(load) for load in loads if not isinstance(load, RenderFailure)}) == 1


def test_the_svg_is_normalised_as_internsvg_does(browser_renderer: BrowserRenderer) -> None:
    tall = f'<svg {NS} width="50px" height="100"><rect width="50" height="100" fill="blue"/></svg>'
    outcome = browser_renderer.animate(tall, AnimationSpec(100, 100, duration_s=1 / 30))
    assert not isinstance(outcome, RenderFailure)
    blue = np.flatnonzero((outcome[0, 50] == [0, 0, 255]).all(axis=-1))
    assert (blue[0], blue[-1]) == (25, 74)  # viewBox 0 0 50 100, centred: xMidYMid meet


def test_still_frames_with_and_without_normalisation(browser_renderer: BrowserRenderer) -> None:
    small = f'<svg {NS} width="36" height="36"><rect width="36" height="36"/></svg>'
    fitted = browser_renderer.still(small, RenderSpec.square(72))
    kept = browser_renderer.still(small, RenderSpec.square(72), normalize=False)
    assert isinstance(fitted, Picture) and isinstance(kept, Picture)
    assert fitted.shape == (72, 72, 3) and fitted.floats.dtype == np.float64
    assert fitted.floats[60, 60].tolist() == [0.0, 0.0, 0.0]
    assert kept.floats[60, 60].tolist() == [1.0, 1.0, 1.0] and kept.floats[30, 30].sum() == 0.0
    moved = browser_renderer.still(SMIL, RenderSpec(64, 64, None), t=0.5)
    assert isinstance(moved, Picture) and moved.floats.shape == (64, 64, 4)
    assert moved.floats[0, 0, 3] == 0.0 and moved.floats[3, 32].tolist() == [1.0, 0.0, 0.0, 1.0]


def test_a_render_past_its_time_is_killed_with_its_browser_then_a_fresh_one_serves(
    browser_renderer: BrowserRenderer,
) -> None:
    times = [index / 30 for index in range(0, 150, 29)]
    before = browser_renderer.frames(BUSY, PageSpec(), times)
    group = browser_renderer.process_groups[0]
    assert "chromedriver" in live_processes(group)
    browser_renderer.timeout_s = 0.5
    try:
        started = time.monotonic()
        outcome = browser_renderer.animate(BUSY)  # 150 frames: several seconds
        elapsed = time.monotonic() - started
    finally:
        browser_renderer.timeout_s = 30.0
    assert isinstance(outcome, RenderFailure)
    assert outcome.tag == "timeout" and elapsed < 3.0
    assert wait_until_gone(group) == []
    assert browser_renderer.process_groups == []
    after = browser_renderer.frames(BUSY, PageSpec(), times)  # a new worker and browser
    assert not isinstance(before, RenderFailure) and not isinstance(after, RenderFailure)
    assert browser_renderer.process_groups[0] != group
    assert digest(after) == digest(before)


def test_a_browser_killed_between_renders_is_replaced_without_a_failure(
    browser_renderer: BrowserRenderer,
) -> None:
    assert not isinstance(browser_renderer.frames(SMIL, PageSpec(), (0.5,)), RenderFailure)
    group = browser_renderer.process_groups[0]
    os.killpg(group, 9)
    assert wait_until_gone(group) == []
    outcome = browser_renderer.frames(SMIL, PageSpec(), (0.5,))
    assert not isinstance(outcome, RenderFailure) and red_columns(outcome[0]) == (202, 245)


def test_a_browser_killed_during_a_render_is_replaced_and_the_render_made_again(
    browser_renderer: BrowserRenderer,
) -> None:
    """A browser killed from outside while it draws (the OOM killer) is not the SVG's doing:
    the render is made once more on a fresh browser and gives the frames it gives unharmed."""
    times = [index / 30 for index in range(60)]  # about 2 s of drawing
    up = browser_renderer.frames(SMIL, PageSpec(), (0.5,))
    assert not isinstance(up, RenderFailure)  # the browser is up
    group = browser_renderer.process_groups[0]
    killed: list[float] = []

    def kill() -> None:
        os.killpg(group, 9)
        killed.append(time.monotonic())

    killer = threading.Timer(0.3, kill)
    killer.start()
    outcome = browser_renderer.frames(BUSY, PageSpec(), times)
    ended = time.monotonic()
    killer.join()
    assert killed and killed[0] < ended - 0.5  # the kill landed well before it ended
    assert browser_renderer.process_groups[0] != group
    some = browser_renderer.frames(BUSY, PageSpec(), times[::19])
    assert not isinstance(outcome, RenderFailure) and not isinstance(some, RenderFailure)
    assert digest(outcome[::19]) == digest(some)


PARENT = """
import sys
from svgeval.render.animation import AnimationSpec, BrowserRenderer
from svgeval.render.picture import RenderFailure
renderer = BrowserRenderer()
drawn = renderer.animate(sys.argv[1], AnimationSpec(duration_s=1 / 30))
assert not isinstance(drawn, RenderFailure)
print(renderer.process_groups[0], flush=True)
sys.stdin.read()
"""


@pytest.mark.usefixtures("chromium")
def test_killing_the_parent_kills_the_browser() -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT, SMIL], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        group = int(parent.stdout.readline())
        names = live_processes(group)
        assert "chromedriver" in names and any("chrom" in name for name in names if
                                               name != "chromedriver"), names
        # the worker leads the group; its arguments are the parent's pid and the profile
        profile = Path(Path(f"/proc/{group}/cmdline").read_bytes().split(b"\0")[4].decode())
        assert profile.is_dir()
    finally:
        parent.kill()  # SIGKILL: nothing of the parent runs after this
        parent.wait()
    assert wait_until_gone(group) == []
    assert not profile.exists()


@pytest.mark.usefixtures("chromium")
def test_rejected_svg_fails_before_any_browser_starts() -> None:
    with BrowserRenderer() as renderer:
        outcome = renderer.animate(f"<svg {NS}><script>while (true) {{}}</script></svg>")
        assert isinstance(outcome, RenderFailure) and outcome.tag == "rejected:script"
        assert renderer.process_groups == [] and renderer.start_seconds == []


def test_missing_chromium_is_one_line_naming_the_packages(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SVGEVAL_CHROMIUM", str(tmp_path / "no-chromium"))
    with pytest.raises(BrowserUnavailable) as error:
        check_browser()
    message = str(error.value)
    assert "\n" not in message and message.startswith("Chromium")
    assert "apt-get install chromium chromium-driver" in message and "svgeval[browser]" in message
    with pytest.raises(BrowserUnavailable):
        BrowserRenderer()


@pytest.mark.usefixtures("chromium")
def test_a_browser_that_cannot_start_raises_instead_of_failing_the_sample(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SVGEVAL_CHROMIUM", "/bin/false")
    with BrowserRenderer(start_timeout_s=30) as renderer:
        with pytest.raises(BrowserUnavailable, match="Chromium did not start"):
            renderer.animate(SMIL)
        assert renderer.process_groups == []

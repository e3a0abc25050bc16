"""A render's time limit is the SVG's CPU time; a worker that gets no CPU is svgeval's problem:
its render is drawn once more on a fresh worker before anything is recorded (issue 43)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.crashers import segfault_on_marker

from svgeval.render import pool as worker_pool
from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.render.picture import Picture, RenderFailure

pytestmark = pytest.mark.e2e  # see the marker in pyproject.toml

SPEC = RenderSpec.square(4)


def marked(*markers: str) -> str:
    """A black square with a description per marker for :func:`segfault_on_marker`."""
    descriptions = "".join(f"<desc>{marker}</desc>" for marker in markers)
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4">'
            f'<rect width="4" height="4"/>{descriptions}</svg>')


@pytest.fixture
def pool() -> Renderer:
    with Renderer(workers=1, timeout_s=1.0, render_function=segfault_on_marker) as renderer:
        yield renderer


def attempts(path: Path) -> int:
    return len(path.read_text().splitlines())


@pytest.mark.parametrize("how", ["render", "call"])
def test_a_worker_stalled_once_is_replaced_and_the_svg_drawn(pool: Renderer, tmp_path: Path,
                                                             how: str) -> None:
    count, flag = tmp_path / "attempts", tmp_path / "stalled"
    svg = marked(f"ATTEMPTS:{count}", f"STALL_ONCE:{flag}")
    if how == "render":
        outcome = pool.render(svg, SPEC)
        assert isinstance(outcome, Picture) and outcome.floats.mean() == pytest.approx(0.0)
    else:
        assert not isinstance(pool.call(segfault_on_marker, svg, SPEC), RenderFailure)
    assert attempts(count) == 2


@pytest.mark.parametrize("how", ["render", "call"])
def test_a_render_that_spends_its_cpu_time_is_the_svgs_timeout_at_once(
        pool: Renderer, tmp_path: Path, how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # a wall-clock limit far away: on a loaded machine the CPU second comes late, and a wall
    # limit reached first would (rightly) try the render again
    monkeypatch.setattr(worker_pool, "WALL_FACTOR", 60.0)
    count = tmp_path / "attempts"
    svg = marked(f"ATTEMPTS:{count}", "BURN")  # CPU time until the limit of 1 s stops it
    failure = (pool.render(svg, SPEC) if how == "render"
               else pool.call(segfault_on_marker, svg, SPEC))
    assert isinstance(failure, RenderFailure) and failure.kind == "timeout"
    assert failure.message == "render took longer than 1 s of CPU time"
    assert attempts(count) == 1


def test_a_render_that_never_gets_cpu_is_recorded_as_svgevals_limit(pool: Renderer,
                                                                    tmp_path: Path) -> None:
    count = tmp_path / "attempts"
    failure = pool.render(marked(f"ATTEMPTS:{count}", "HANG"), SPEC)
    assert isinstance(failure, RenderFailure) and failure.kind == "timeout"
    assert failure.message.startswith("no result after 3 s of wall time, twice")
    assert "svgeval's limit" in failure.message and "--render-timeout" in failure.message
    assert attempts(count) == 2
    after = pool.render(marked(), SPEC)  # the pool goes on
    assert isinstance(after, Picture)

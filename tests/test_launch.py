"""The ``svgeval`` command starts the render workers' server before it imports svgeval."""

from __future__ import annotations

import json
import multiprocessing.forkserver
import subprocess
import sys
from pathlib import Path

import pytest

from svgeval.cli import main as launch


def test_rendering_commands_start_the_forkserver_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """...and every command freezes the collector's view once its command line is imported; a
    command's help renders nothing and starts no server."""
    events: list[str] = []
    monkeypatch.setattr(launch.gc, "freeze", lambda: events.append("freeze"))
    monkeypatch.setattr("svgeval.render.forkserver.start_early",
                        lambda renderer: events.append("forkserver"))
    monkeypatch.setattr("svgeval.cli.root.app", lambda: events.append("app"))  # imports it first
    for argv, expected in ((["svgeval", "run", "x"], ["forkserver", "freeze", "app"]),
                           (["svgeval", "list", "tasks"], ["freeze", "app"]),
                           (["svgeval"], ["freeze", "app"]),
                           (["svgeval", "run", "--help"], ["freeze", "app"]),
                           (["svgeval", "score", "-h"], ["freeze", "app"]),
                           (["svgeval", "score", "runs/x"], ["forkserver", "freeze", "app"])):
        events.clear()
        monkeypatch.setattr(sys, "argv", argv)
        launch.main()
        assert events == expected, argv


def test_the_renderer_of_a_run_is_read_before_the_command_line() -> None:
    for argv, expected in ((["svgeval", "run", "t", "--renderer", "skia"], "skia"),
                           (["svgeval", "run", "t", "--renderer=resvg", "--limit", "2"], "resvg"),
                           (["svgeval", "run", "t", "--model", "identity"], "cairosvg"),
                           (["svgeval", "score", "runs/x"], None)):
        assert launch.renderer_named(argv) == expected, argv


def test_start_early_runs_the_forkserver_with_the_run_s_renderer_preloaded() -> None:
    from svgeval.render.forkserver import COMMON_PRELOAD, start_early

    start_early("skia")
    server = multiprocessing.forkserver._forkserver
    assert server._forkserver_pid is not None
    assert list(server._preload_modules) == [*COMMON_PRELOAD, "skia"]


@pytest.mark.e2e
def test_python_dash_m_svgeval_runs_a_task(demo_data: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    done = subprocess.run(
        [sys.executable, "-m", "svgeval", "run", "svgeditbench", "--model", "oracle",
         "--data", str(demo_data), "--out", str(out)],
        capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads((out / "results.json").read_text())
    mse = {key: value for key, value in results["metrics"].items() if key.endswith("/mse")}
    assert results["complete"] and len(mse) == 6 and set(mse.values()) == {0.0}

"""A record states what the model did, never what happened to svgeval's render workers.

Real worker processes of a real ``svgeval run`` are killed with SIGKILL, as the OOM killer
would: the records come out as an undisturbed run's. Workers that cannot be restarted stop the
run with one line and exit 1, keeping the samples it finished, and ``--resume`` completes it.
A ``kill -9`` of ``svgeval run`` takes its render workers and their forkserver with it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Collection
from pathlib import Path
from typing import Any

import pytest
from pebble import ProcessPool
from support.fake_openai_server import FakeOpenAIServer, echo_svg
from support.worker_processes import (
    alive,
    cpu_seconds,
    exit_at_start_once,
    forkserver_of,
    idle,
    render_workers,
    wait_for,
)
from typer.testing import CliRunner

from svgeval.cli import app
from svgeval.render.forkserver import render_context
from svgeval.tasks.base import CommonOptions
from svgeval.tasks.svgeditbench import SvgEditBench

pytestmark = pytest.mark.e2e  # see the marker in pyproject.toml


def run_command(demo_data: Path, out: Path, base_url: str) -> list[str]:
    """``svgeval run`` of the 72 demo cases against ``base_url``, one request at a time, so the
    two render workers wait idle between answers."""
    return ["run", "svgeditbench", "--data", str(demo_data), "--out", str(out),
            "--model", "openai-compatible:fake", "--base-url", base_url,
            "--concurrency", "1", "--render-workers", "2"]


def outcomes(run_dir: Path) -> dict[str, Any]:
    """Each sample's failure and metrics, by id, and the run's numbers."""
    records = [json.loads(line) for line in (run_dir / "samples.jsonl").read_text().splitlines()]
    results = json.loads((run_dir / "results.json").read_text())
    return {"samples": {r["id"]: (r.get("failure"), r["metrics"]) for r in records},
            "n_records": len(records),
            "results": {key: results[key] for key in ("n", "n_valid", "complete", "metrics")}}


def samples_done(run_dir: Path) -> int:
    path = run_dir / "samples.jsonl"
    return path.read_text().count("\n") if path.exists() else 0


def kill_an_idle_worker(owner: int, exclude: Collection[int]) -> int:
    """SIGKILL one idle render worker of process ``owner`` (not one of ``exclude``)."""
    chosen: list[int] = []

    def pick() -> bool:  # a worker idle when looked at may be busy a moment later: look again
        chosen[:] = [p for p in render_workers(owner) if p not in exclude and idle(p)][:1]
        return bool(chosen)

    assert wait_for(pick, 30)
    victim = chosen[0]
    os.kill(victim, signal.SIGKILL)
    assert wait_for(lambda: not alive(victim), 10)
    return victim


def test_killing_render_workers_during_a_run_changes_no_record(
    tmp_path: Path, demo_data: Path
) -> None:
    with FakeOpenAIServer(reply=echo_svg, delay_s=0.05) as server:
        undisturbed = tmp_path / "undisturbed"
        command = [sys.executable, "-m", "svgeval"]
        subprocess.run([*command, *run_command(demo_data, undisturbed, server.base_url)],
                       check=True, capture_output=True, timeout=300)
        killed = tmp_path / "killed"
        process = subprocess.Popen([*command, *run_command(demo_data, killed, server.base_url)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        victims: set[int] = set()
        for after in (8, 30):  # two kills, each of a worker idle between two answers
            assert wait_for(lambda after=after: samples_done(killed) >= after, 120)  # type: ignore[misc]
            victims.add(kill_an_idle_worker(process.pid, victims))
        at_last_kill = samples_done(killed)
        _, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stderr
    assert at_last_kill < 72  # the kills happened while the run was going on
    assert outcomes(killed) == outcomes(undisturbed)
    assert outcomes(killed)["results"]["n_valid"] == 72


def test_a_run_whose_render_workers_cannot_restart_stops_with_one_line(
    tmp_path: Path, demo_data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from svgeval.render.pool import WorkerPool

    class MortalWorkers(WorkerPool):
        """Render workers that cannot start once the file ``marker`` exists."""

        marker = str(tmp_path / "no-more-workers")

        def _new_pool(self) -> ProcessPool:
            return ProcessPool(max_workers=self.workers, initializer=exit_at_start_once,
                               initargs=(self.marker,), context=render_context())

    out = tmp_path / "run"
    monkeypatch.setattr("svgeval.render.isolated.WorkerPool", MortalWorkers)
    before = set(render_workers())
    with FakeOpenAIServer(reply=echo_svg, delay_s=0.05) as server:
        def kill_every_worker_after_ten_samples() -> None:
            assert wait_for(lambda: samples_done(out) >= 10, 120)
            Path(MortalWorkers.marker).touch()  # from now on no worker can start
            for pid in render_workers():
                if pid not in before:
                    os.kill(pid, signal.SIGKILL)

        killer = threading.Thread(target=kill_every_worker_after_ten_samples)
        killer.start()
        stopped = CliRunner().invoke(app, run_command(demo_data, out, server.base_url))
        killer.join()
        monkeypatch.undo()  # render workers start again
        kept = samples_done(out)
        resumed = CliRunner().invoke(app, [*run_command(demo_data, out, server.base_url),
                                           "--resume"])
    errors = [line for line in stopped.output.splitlines() if line.startswith("error:")]
    assert stopped.exit_code == 1 and len(errors) == 1, stopped.output  # and the progress line
    assert errors[0].startswith("error: the render worker processes keep failing")
    assert "--resume" in errors[0]
    assert 10 <= kept < 72
    assert resumed.exit_code == 0, resumed.output
    records = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert sorted(r["id"] for r in records) == sorted(
        s.id for s in SvgEditBench(CommonOptions(data=demo_data)).load())
    assert [r for r in records if r.get("failure")] == []  # no machinery failure was recorded


HANGING_POINTS = 30_000
"""Vertices of the hanging answer: a filled zigzag with wide round-joined strokes that passes
the sanitiser (324 kB) and keeps CairoSVG busy for about 30 s."""


def hanging_svg() -> str:
    """A filled zigzag of HANGING_POINTS vertices, stroked wide with round joins."""
    import random

    draw = random.Random(0)
    points = " ".join(f"L{draw.uniform(0, 100):.1f} {draw.uniform(0, 100):.1f}"
                      for _ in range(HANGING_POINTS))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><path d="M0 0 '
            f'{points}" stroke="black" stroke-width="30" stroke-linejoin="round" fill="red"/>'
            "</svg>")


def test_render_workers_die_with_a_killed_run(tmp_path: Path, demo_data: Path) -> None:
    """SIGKILL of ``svgeval run`` while its workers draw: workers and forkserver are gone
    within seconds (orphaned, they drew on for about 30 s, past the 10 s render limit)."""
    answer = f"```svg\n{hanging_svg()}\n```"
    replay = tmp_path / "answers.jsonl"
    ids = [s.id for s in SvgEditBench(CommonOptions(data=demo_data)).load()]
    replay.write_text("".join(json.dumps({"id": i, "response": answer}) + "\n" for i in ids))
    process = subprocess.Popen(
        [sys.executable, "-m", "svgeval", "run", "svgeditbench", "--data", str(demo_data),
         "--out", str(tmp_path / "run"), "--model", f"replay:{replay}", "--render-workers", "2"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        assert wait_for(lambda: any(cpu_seconds(p) > 0.5 for p in render_workers(process.pid)),
                        60)  # a worker is drawing the answer (drawn once: every answer is it)
        workers, server = render_workers(process.pid), forkserver_of(process.pid)
        assert server is not None
        os.kill(process.pid, signal.SIGKILL)  # the process alone, as the OOM killer does
        process.wait(timeout=10)
        assert wait_for(lambda: not any(alive(p) for p in [*workers, server]), 3), \
            [p for p in [*workers, server] if alive(p)]
    finally:
        os.killpg(process.pid, signal.SIGKILL)  # what is left in its session, if the test failed

"""A renderer whose package is missing stops the command before anything runs, with one line
naming the install: it never turns every sample into a "reference" failure."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e  # every test runs svgeval or Python in a fresh interpreter

SVGEVAL = [sys.executable, "-m", "svgeval"]


def without(module: str, tmp_path: Path) -> dict[str, str]:
    """An environment in which ``module`` cannot be imported, in this process's children and
    theirs (the render workers' server included): a ``sitecustomize`` marks it as absent."""
    hide = tmp_path / "hide"
    hide.mkdir(exist_ok=True)
    (hide / "sitecustomize.py").write_text(f"import sys\nsys.modules[{module!r}] = None\n")
    return {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(hide), *filter(None, [os.environ.get("PYTHONPATH")])])}


def one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 1 and len(lines) == 1, done.stderr
    return lines[0]


def test_run_with_a_missing_renderer_stops_before_anything_is_written(
    tmp_path: Path, demo_data: Path
) -> None:
    out = tmp_path / "run"
    done = subprocess.run(
        [*SVGEVAL, "run", "svgeditbench", "--data", str(demo_data), "--out", str(out),
         "--renderer", "resvg"],
        env=without("resvg_py", tmp_path), capture_output=True, text=True, timeout=300,
        check=False)
    line = one_error_line(done)
    assert line.startswith("error: --renderer resvg needs the Python package resvg-py")
    assert 'pip install -e ".[fast]"' in line
    assert not out.exists()


def test_score_with_a_missing_renderer_leaves_the_run_as_it_was(
    tmp_path: Path, demo_data: Path
) -> None:
    pytest.importorskip("skia")
    out = tmp_path / "run"
    subprocess.run([*SVGEVAL, "run", "svgeditbench", "--data", str(demo_data), "--out",
                    str(out), "--renderer", "skia", "--limit", "1"],
                   capture_output=True, check=True, timeout=300)
    before = (out / "samples.jsonl").read_bytes()
    done = subprocess.run([*SVGEVAL, "score", str(out)], env=without("skia", tmp_path),
                          capture_output=True, text=True, timeout=300, check=False)
    assert one_error_line(done).startswith("error: --renderer skia needs the Python package")
    assert (out / "samples.jsonl").read_bytes() == before


def test_a_reward_with_a_missing_renderer_fails_when_it_is_built(tmp_path: Path) -> None:
    code = ("from svgeval.rewards import svg_reward\n"
            "try:\n    svg_reward('fast', renderer='resvg')\n"
            "except Exception as error:\n    print(type(error).__name__ + ': ' + str(error))\n")
    done = subprocess.run([sys.executable, "-c", code], env=without("resvg_py", tmp_path),
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.stdout.startswith("RendererUnavailable: --renderer resvg needs"), done.stderr

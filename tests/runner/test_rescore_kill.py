"""``svgeval score`` killed part-way (SIGKILL) leaves the run as it was (or, killed after it
replaced the run, completely rescored), and the next score starts its scratch file afresh: no
invalid line, no sample twice. The run has 8 copies of the demo release (576 samples): scored in
batches, the 72 demo samples were rescored in one or two writes, too fast for a kill to land
part-way."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from support.worker_processes import wait_for

pytestmark = pytest.mark.e2e  # see the marker in pyproject.toml

SVGEVAL = [sys.executable, "-m", "svgeval"]
COPIES = 8
SAMPLES = 72 * COPIES


def copies(release: Path, target: Path, count: int) -> Path:
    """``count`` copies of every case of ``release`` (``<id>_<k>``), in its layout."""
    for query in release.glob("*/query/*.txt"):
        answer = query.parent.parent / "answer" / f"{query.stem}.svg"
        for k in range(count):
            for path in (query, answer):
                copy = target / path.parent.relative_to(release) / f"{path.stem}_{k}{path.suffix}"
                copy.parent.mkdir(parents=True, exist_ok=True)
                copy.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    return target


def test_scores_killed_part_way_then_one_score_leave_every_sample_once(
    tmp_path: Path, demo_data: Path
) -> None:
    out, data = tmp_path / "run", copies(demo_data, tmp_path / "copies", COPIES)
    subprocess.run([*SVGEVAL, "run", "svgeditbench", "--data", str(data), "--out", str(out),
                    "--render-workers", "1"], check=True, capture_output=True, timeout=300)
    original = (out / "samples.jsonl").read_text()
    scratch = out / "samples.jsonl.rescore"
    kills = 0
    for _ in range(8):  # until two scores were killed with part of their lines written
        # niced, so that on a busy machine the check below looks far more often than the score
        # writes, and the kill lands part-way
        score = subprocess.Popen(["nice", "-n", "19", *SVGEVAL, "score", str(out)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 start_new_session=True)
        part_way = wait_for(lambda: scratch.exists() and scratch.read_text().count("\n") >= 5, 120,
                            step_s=0.005)
        os.killpg(score.pid, signal.SIGKILL)
        score.wait(timeout=30)
        now = (out / "samples.jsonl").read_text()
        if now != original:  # the kill came after the score had replaced the run: complete
            assert not scratch.exists() and every_sample_once(now)
            original = now
            continue
        kills += part_way and scratch.read_text().count("\n") < SAMPLES
        if kills == 2:
            break
    assert kills == 2
    done = subprocess.run([*SVGEVAL, "score", str(out)], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert every_sample_once((out / "samples.jsonl").read_text())
    assert not scratch.exists()


def every_sample_once(samples: str) -> bool:
    """Whether every line is valid JSON and each of the run's samples is there once."""
    ids = Counter(json.loads(line)["id"] for line in samples.splitlines())
    return len(ids) == SAMPLES and set(ids.values()) == {1}

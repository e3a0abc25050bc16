"""``svgeval score`` killed part-way (SIGKILL) leaves the run as it was, and the next score
starts its scratch file afresh: no invalid line, no sample twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

from worker_processes import wait_for

SVGEVAL = [sys.executable, "-m", "svgeval"]


def test_scores_killed_part_way_then_one_score_leave_every_sample_once(
    tmp_path: Path, demo_data: Path
) -> None:
    out = tmp_path / "run"
    subprocess.run([*SVGEVAL, "run", "svgeditbench", "--data", str(demo_data), "--out", str(out),
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
        if score.wait(timeout=30) == 0:  # it finished before the kill: a complete score
            assert not scratch.exists()
            original = (out / "samples.jsonl").read_text()
            continue
        kills += part_way and scratch.read_text().count("\n") < 72
        assert (out / "samples.jsonl").read_text() == original  # the run is as it was
        if kills == 2:
            break
    assert kills == 2
    done = subprocess.run([*SVGEVAL, "score", str(out)], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    lines = (out / "samples.jsonl").read_text().splitlines()
    ids = Counter(json.loads(line)["id"] for line in lines)  # every line is valid JSON
    assert len(ids) == 72 and set(ids.values()) == {1}
    assert not scratch.exists()

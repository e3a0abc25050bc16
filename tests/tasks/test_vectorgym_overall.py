"""The overall VectorGym score from four run directories, against a hand computation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from svgeval.cli import app
from svgeval.runner.records import Results
from svgeval.runner.run_dir import RunDir, write_record

RUNS = {
    "vectorgym-sketch": {"judge": 6.0, "dino": 0.8, "mse": 0.1, "lpips": 0.3,
                         "mse_worst": 0.2, "lpips_worst": 0.5, "dino_worst": 0.6},
    "vectorgym-edit": {"judge": 4.0, "dino": 0.9, "mse": 0.05, "lpips": 0.2},
    "vectorgym-text": {"judge": 5.0, "clip": 30.0, "dino": 0.7},
    "vectorgym-caption": {"judge": 60.0, "bge_m3": 80.0, "rouge_l": 25.0},
}
# by hand, each task: the mean of its components on 0-100
SKETCH = (60 + 80 + 90 + 70) / 4  # 75
EDIT = (40 + 90 + 95 + 80) / 4  # 76.25
TEXT = (50 + 30 + 70) / 3  # 50
CAPTION = (60 + 80 + 25) / 3  # 55
OVERALL = (75 + 76.25 + 50 + 55) / 4  # 64.0625


def write_run(folder: Path, task: str, metrics: dict[str, float]) -> Path:
    folder.mkdir(parents=True)
    results = Results(task=task, task_version="1", model="replay:x", n=1, n_expected=1,
                      n_valid=1, complete=True, counts={"test": {"n": 1}}, svgeval_version="0",
                      metrics={f"test/{key}": value for key, value in metrics.items()})
    write_record(RunDir(folder).results, results)
    return folder


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["vectorgym", "overall", *args])
    return result.exit_code, result.output


def test_overall_equals_the_hand_computation(tmp_path: Path) -> None:
    runs = [str(write_run(tmp_path / task, task, metrics)) for task, metrics in RUNS.items()]
    code, output = invoke(*runs, "--json")
    assert code == 0, output
    answer = json.loads(output)
    assert answer["vectorgym_score"] == pytest.approx(OVERALL)
    scores = {task: value["score"] for task, value in answer["tasks"].items()}
    assert scores == pytest.approx({"vectorgym-sketch": SKETCH, "vectorgym-edit": EDIT,
                                    "vectorgym-text": TEXT, "vectorgym-caption": CAPTION})
    code, output = invoke(*runs)
    assert code == 0 and "VectorGym score: 64.06 (inversion linear, reading released)" in output


def test_options_and_mistakes(tmp_path: Path) -> None:
    runs = {task: str(write_run(tmp_path / task, task, m)) for task, m in RUNS.items()}
    code, output = invoke(*runs.values(), "--reading", "worst", "--json")
    assert code == 1 and "vectorgym-edit: no value for dino_worst" in output
    code, output = invoke(*list(runs.values())[:3])
    assert code == 1 and "no run of vectorgym-caption" in output
    code, output = invoke(runs["vectorgym-text"], runs["vectorgym-text"])
    assert code == 1 and "two runs of vectorgym-text" in output
    code, output = invoke(*runs.values(), "--inversion", "log")
    assert code == 1 and "linear|clipped" in output
    big = dict(RUNS["vectorgym-edit"], lpips=1.2)
    runs["vectorgym-edit"] = str(write_run(tmp_path / "edit2", "vectorgym-edit", big))
    code, output = invoke(*runs.values(), "--inversion", "clipped", "--json")
    assert json.loads(output)["tasks"]["vectorgym-edit"]["lpips"] == 0.0
    code, output = invoke(*runs.values(), "--json")
    assert json.loads(output)["tasks"]["vectorgym-edit"]["lpips"] == pytest.approx(-20.0)

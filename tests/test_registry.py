"""One registry for tasks, metrics and model kinds; other packages add theirs by entry points."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from svgeval.metrics import METRICS
from svgeval.registry import Registry
from svgeval.tasks import all_tasks

PLUGIN = '''
from dataclasses import dataclass
from svgeval.metrics.registry import MetricInfo, describe_metric
from svgeval.tasks import register_task
from svgeval.tasks.base import Sample, Score, Task

describe_metric(MetricInfo(name="plugin_metric", summary="s", value_range="[0, 1]",
                           higher_is_better=True, source="a plugin", presets=("svgenius",)))

@register_task
class PluginTask(Task):
    name = "plugin-task"
    description = "a task from another package"
    metrics = {"score": "plugin_metric"}

    def load(self):
        return [Sample(id="1", group="g", messages=[], reference="x")]

    def score(self, sample, response, renderer):
        return Score(metrics={"score": 1.0})
'''


def test_another_package_adds_a_task_and_a_metric_through_entry_points(tmp_path: Path) -> None:
    (tmp_path / "svgeval_plugin.py").write_text(PLUGIN)
    info = tmp_path / "svgeval_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: svgeval-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[svgeval.tasks]\nplugin-task = svgeval_plugin\n\n"
        "[svgeval.metrics]\nplugin_metric = svgeval_plugin\n"
    )
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    out = subprocess.run(
        [sys.executable, "-m", "svgeval.cli", "list", "tasks"],
        capture_output=True, text=True, env=env, check=True,
    ).stdout
    assert "svgeditbench" in out
    # a task that names no suite is listed last, under its own heading
    assert out.rstrip().endswith("other\n  plugin-task  a task from another package")
    code = ("from svgeval.tasks import get_task; from svgeval.metrics import METRICS;"
            "print(get_task('plugin-task').higher_is_better('score'),"
            " 'plugin_metric' in METRICS)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         check=True).stdout
    assert out.split() == ["True", "True"]


def test_every_reported_metric_names_a_registered_metric() -> None:
    metrics = METRICS.all()
    for name, task in all_tasks().items():
        assert task.metrics, name
        for key, metric in task.metrics.items():
            assert metric in metrics, f"{name}: {key} -> {metric}"
            assert task.higher_is_better(key) is metrics[metric].higher_is_better


def test_a_name_registered_twice_is_refused() -> None:
    registry: Registry[str] = Registry("thing", "svgeval.tests", name_of=lambda entry: entry[:1])
    registry.register("apple")
    registry.register("apple")  # the same entry again is fine
    with pytest.raises(ValueError, match="thing 'a' is registered twice"):
        registry.register("avocado")
    with pytest.raises(KeyError, match="unknown thing 'b'; known: a"):
        registry.get("b")

"""One registry for tasks, metrics and model kinds; other packages add theirs by entry points."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import svgeval
from svgeval.metrics.registry import METRICS
from svgeval.registry import Registry, own_entry_points
from svgeval.tasks import TASKS, all_tasks

REPO = Path(__file__).resolve().parents[1]
SUITE_MODULES = {point.name: point.value for point in own_entry_points("svgeval.tasks")}

PLUGIN = '''
from dataclasses import dataclass
from svgeval.metrics.registry import MetricInfo, describe_metric
from svgeval.tasks import register_task
from svgeval.tasks.base import Sample, Task
from svgeval.tasks.outcome import Outcome

describe_metric(MetricInfo(name="plugin_metric", summary="s", value_range="[0, 1]",
                           higher_is_better=True, source="a plugin"))

@register_task
class PluginTask(Task):
    name = "plugin-task"
    description = "a task from another package"
    metrics = {"score": "plugin_metric"}

    def load(self):
        return [Sample(id="1", group="g", messages=[], reference="x")]

    def score(self, sample, response, renderer):
        return Outcome.of(sample, {"score": 1.0})
'''


@pytest.mark.e2e
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
    assert out.rstrip().endswith("other\n  plugin-task  a task from another package\n"
                                 "      baselines: oracle, empty, hostile")
    code = ("from svgeval.tasks import get_task; from svgeval.metrics.registry import METRICS;"
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


def suite_module(task_name: str) -> str | None:
    """The module svgeval's entry points lead ``task_name`` to."""
    point = TASKS.point_for(task_name)
    return point.value if point is not None else None


def test_a_task_name_leads_to_the_module_of_its_suite() -> None:
    assert suite_module("svgeditbench") == "svgeval.tasks.svgeditbench"
    assert suite_module("svgeditbench-v2") == "svgeval.tasks.svgeditbench_v2"
    assert suite_module("sarena-icon-edit") == "svgeval.tasks.sarena"
    assert suite_module("svgeniusx") is None and suite_module("plugin-task") is None
    for name, task in all_tasks().items():
        assert suite_module(name) == ".".join(task.__module__.split(".")[:3])  # its package


def test_every_shipped_suite_is_declared_and_the_install_is_current() -> None:
    tomllib = pytest.importorskip("tomllib")
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["entry-points"]
    for group, points in declared.items():
        installed = {point.name: point.value for point in own_entry_points(group)}
        assert installed == points, f"{group}: the install is stale; run pip install -e ."
    packages = Path(svgeval.__file__).parent / "tasks"
    suites = {f"svgeval.tasks.{path.name}" for path in packages.iterdir()
              if (path / "__init__.py").is_file() and path.name != "common"}
    assert suites == set(declared["svgeval.tasks"].values())


def _loaded_after(code: str) -> list[str]:
    """The shipped suite modules imported by ``code`` run in a fresh interpreter."""
    show = "; import sys; print(*[m for m in sys.modules if m in SUITES.values()])"
    script = ("from svgeval.registry import own_entry_points; SUITES = {p.name: p.value for p in "
              f"own_entry_points('svgeval.tasks')}}; {code}{show}")
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True).stdout.split()


@pytest.mark.e2e
def test_asking_for_one_task_imports_its_suite_alone() -> None:
    assert _loaded_after("from svgeval.tasks import get_task; get_task('svgeditbench')") == [
        "svgeval.tasks.svgeditbench"]
    v2 = _loaded_after("from svgeval.tasks import get_task; get_task('svgeditbench-v2')")
    assert "svgeval.tasks.svgeditbench_v2" in v2 and "svgeval.tasks.svgeditbench" not in v2
    assert sorted(_loaded_after("from svgeval.tasks import all_tasks; all_tasks()")) == sorted(
        SUITE_MODULES.values())


@pytest.mark.e2e
def test_svgeval_run_starts_without_the_other_commands() -> None:
    code = ("import sys; sys.argv = ['svgeval', 'run', '--help']; from svgeval.cli.main import main\n"
            "try:\n    main()\nexcept SystemExit as done:\n    code = done.code\n"
            "print(code, 'svgeval.cli.commands' in sys.modules, 'svgeval.report.run_report' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "--renderer" in out.stdout and out.stdout.split()[-3:] == ["0", "False", "False"]

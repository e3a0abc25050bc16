"""A suite added from its own package alone: docs/example_suite (the worked example of
docs/adding_a_suite.md), installed with pip into a folder of its own, adds a task, an extraction
rule, a metric preset, a metric, a model backend and a sub-command that svgeval finds through
their entry points; no file of svgeval changes."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import svgeval

pytestmark = pytest.mark.e2e  # see the marker in pyproject.toml

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "docs" / "example_suite"
GUIDE = REPO / "docs" / "adding_a_suite.md"


def svgeval_files() -> dict[str, tuple[int, int]]:
    """Every file of svgeval's source tree (bytecode caches aside): size and modification."""
    root = Path(svgeval.__file__).parent
    return {str(path.relative_to(root)): (path.stat().st_size, path.stat().st_mtime_ns)
            for path in root.rglob("*") if path.is_file() and "__pycache__" not in path.parts}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The toy suite installed by pip into a folder of its own (from a copy: pip writes build
    files beside the sources)."""
    work = tmp_path_factory.mktemp("toy")
    shutil.copytree(EXAMPLE, work / "src", ignore=shutil.ignore_patterns("__pycache__"))
    before = svgeval_files()
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                    "--no-build-isolation", "--target", str(work / "site"), str(work / "src")],
                   check=True, capture_output=True)
    yield work / "site"
    assert svgeval_files() == before  # the suite touched nothing of svgeval's


def svgeval_cli(site: Path, *args: str, cwd: Path | None = None) -> str:
    """The output of ``svgeval ARGS`` with the toy suite's folder on the path."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (
        str(site), os.environ.get("PYTHONPATH"))))}
    done = subprocess.run([sys.executable, "-m", "svgeval", *args], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def test_the_package_declares_what_it_adds_through_entry_points(site: Path) -> None:
    (info,) = site.glob("toy_suite-*.dist-info")
    groups = re.findall(r"^\[([\w.]+)\]", (info / "entry_points.txt").read_text(), re.MULTILINE)
    assert sorted(groups) == ["svgeval.commands", "svgeval.extraction_rules",
                              "svgeval.metric_presets", "svgeval.metrics", "svgeval.models",
                              "svgeval.tasks"]


def test_list_shows_the_suites_task_metric_and_model(site: Path) -> None:
    tasks = svgeval_cli(site, "list", "tasks")
    assert "Toy  (preset: toy)" in tasks
    assert "toy-circles  draw N circles; error = |circles drawn - N|" in tasks
    assert "svgenius-bugfix" in tasks  # the shipped suites are still there
    metrics = svgeval_cli(site, "list", "metrics")
    assert re.search(r"circle_error  \|circles drawn - circles asked for\|; \[0, inf\), lower is "
                     r"better; presets: toy;", metrics)
    assert "toy-counter  draws as many circles" in svgeval_cli(site, "list", "models")


def test_the_suites_sub_command_is_mounted(site: Path, tmp_path: Path) -> None:
    assert "Tools of the toy suite." in svgeval_cli(site, "--help")
    help_text = svgeval_cli(site, "toy", "--help")
    assert "Toy suite tools." in help_text and "build" in help_text
    out = svgeval_cli(site, "toy", "build", "--out", str(tmp_path / "counts.json"), "--up-to", "4")
    assert f"wrote 4 counts to {tmp_path / 'counts.json'}" in out
    assert json.loads((tmp_path / "counts.json").read_text()) == [1, 2, 3, 4]


def test_the_task_runs_with_the_suites_model_rule_and_metric(site: Path, tmp_path: Path) -> None:
    counts = tmp_path / "counts.json"
    counts.write_text("[2, 5]")
    for model, error in (("toy-counter", 0.0), ("oracle", 0.0)):
        run = tmp_path / model
        svgeval_cli(site, "run", "toy-circles", "--data", str(counts), "--model", model,
                    "--out", str(run))
        results = json.loads((run / "results.json").read_text())
        assert results["complete"] and results["metrics"] == {"toy/error": error}
        records = [json.loads(line) for line in (run / "samples.jsonl").read_text().splitlines()]
        assert {record["extraction_rule"] for record in records} == {"toy"}
    svgeval_cli(site, "run", "toy-circles", "--data", str(counts), "--model", "identity",
                "--out", str(tmp_path / "identity"))
    results = json.loads((tmp_path / "identity" / "results.json").read_text())
    assert results["metrics"] == {"toy/error": None}
    assert results["counts"]["toy"]["failures"] == {"extract": 2}


def test_the_guide_states_the_examples_line_counts() -> None:
    """docs/adding_a_suite.md quotes each file of the example with its length in lines."""
    stated = dict(re.findall(r"^\| `((?:toy_suite/)?[\w.]+)` \| (\d+) \|", GUIDE.read_text(),
                             re.MULTILINE))
    files = {str(path.relative_to(EXAMPLE)) for path in EXAMPLE.rglob("*")
             if path.is_file() and "__pycache__" not in path.parts}
    assert set(stated) == files
    for name, lines in stated.items():
        assert len((EXAMPLE / name).read_text().splitlines()) == int(lines), name

"""Fixtures of the report tests: the runs of :mod:`report_runs`, built once per session."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from browser import headless_chromium
from report_runs import DemoRuns, RecordingServer, SmallRun, answer, invoke, make_data

from svgeval.runner.units import select_samples
from svgeval.tasks.base import CommonOptions
from svgeval.tasks.svgeditbench import SvgEditBench


@pytest.fixture(scope="session")
def small_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SmallRun]:
    root = tmp_path_factory.mktemp("small")
    data = make_data(root)
    server = RecordingServer()
    run = SmallRun(root=root / "run", data=data, server=server)
    samples = select_samples(SvgEditBench(CommonOptions(data=data)).load(), 2)
    lines = []
    for index, sample in enumerate(samples):
        response, outcome = answer(index, sample.input_svg or "", server.url)
        run.expected[sample.id] = outcome
        if index in (8, 9):
            run.hostile.add(sample.id)
        lines.append(json.dumps({"id": sample.id, "response": response}))
    replay = root / "answers.jsonl"
    replay.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, output = invoke(["run", "svgeditbench", "--data", str(data), "--limit", "2",
                           "--model", f"replay:{replay}", "--out", str(run.root),
                           "--render-workers", "2"])
    assert code == 0, output
    yield run
    server.close()


@pytest.fixture(scope="session")
def demo_runs(tmp_path_factory: pytest.TempPathFactory) -> DemoRuns:
    root = tmp_path_factory.mktemp("demo")
    data, other = make_data(root / "a"), make_data(root / "b", seed=5)
    runs = DemoRuns(root / "runs" / "identity", root / "runs" / "oracle", root / "other" / "id")
    for model, where, out in (("identity", data, runs.identity), ("oracle", data, runs.oracle),
                              ("identity", other, runs.other_data)):
        code, output = invoke(["run", "svgeditbench", "--data", str(where), "--model", model,
                               "--out", str(out), "--render-workers", "2"])
        assert code == 0, output
    return runs


@pytest.fixture(scope="session")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Headless Chromium driven by selenium; skipped, with the reason, where it is missing."""
    yield from headless_chromium(tmp_path_factory.mktemp("chromium-profile"))

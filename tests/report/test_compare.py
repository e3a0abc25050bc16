"""``svgeval compare``: paired differences recomputed by hand from the two runs' samples, the
samples that differ most, the side-by-side page, and runs that cannot be paired."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from report_runs import DemoRuns, edited_copy, invoke, one_line_error


def per_sample(run: Path, metric: str) -> dict[str, tuple[str, float]]:
    """Sample id -> (group, value) of ``metric`` where the sample has one."""
    lines = (run / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines if line.strip()]
    return {r["id"]: (r["group"], r["metrics"][metric]) for r in rows
            if r["metrics"].get(metric) is not None}


@pytest.fixture(scope="module")
def comparison(demo_runs: DemoRuns, tmp_path_factory: pytest.TempPathFactory) -> tuple[
    Path, dict[str, Any]
]:
    out = tmp_path_factory.mktemp("compare")
    code, output = invoke(["compare", str(demo_runs.identity), str(demo_runs.oracle),
                           "--out", str(out), "--top", "5", "--render-workers", "2"])
    assert code == 0, output
    assert "change_color/mse" in output
    return out, json.loads((out / "comparison.json").read_text(encoding="utf-8"))


def test_paired_differences_match_a_hand_computation(
    demo_runs: DemoRuns, comparison: tuple[Path, dict[str, Any]]
) -> None:
    _, found = comparison
    by_key = {f"{m['group']}/{m['metric']}": m for m in found["metrics"]}
    a, b = per_sample(demo_runs.identity, "mse"), per_sample(demo_runs.oracle, "mse")
    groups = {group for group, _ in a.values()}
    for group in [*groups, "all"]:
        ids = [i for i in a if i in b and (group == "all" or a[i][0] == group)]
        diffs = [b[i][1] - a[i][1] for i in ids]
        paired = by_key[f"{group}/mse"]
        assert paired["n"] == len(ids)
        assert paired["mean_diff"] == pytest.approx(sum(diffs) / len(diffs), abs=1e-15)
        # mse: lower is better, so B (oracle) is better where the difference is negative
        assert paired["better"] == pytest.approx(sum(d < 0 for d in diffs) / len(diffs))
        assert paired["worse"] == pytest.approx(sum(d > 0 for d in diffs) / len(diffs))
        low, high = paired["ci95"]
        assert low <= paired["mean_diff"] <= high
        if len(set(diffs)) == 1:
            assert low == high == diffs[0]


def test_samples_that_differ_most(
    demo_runs: DemoRuns, comparison: tuple[Path, dict[str, Any]]
) -> None:
    out, found = comparison
    a, b = per_sample(demo_runs.identity, "mse"), per_sample(demo_runs.oracle, "mse")
    ranked = sorted((i for i in a if b[i][1] != a[i][1]),
                    key=lambda i: (-abs(b[i][1] - a[i][1]), i))
    assert [pair["id"] for pair in found["largest"]["mse"]] == ranked[:5]
    page = (out / "index.html").read_text(encoding="utf-8")
    for sample_id in ranked[:5]:
        assert f'<span class="sid">{sample_id}</span>' in page
    # per shown sample: A's render, B's render, the reference
    shown = sum(len(pairs) for pairs in found["largest"].values())
    assert page.count('<img src="renders/') == 3 * shown
    assert all((out / "renders").glob("*.png"))


def test_outcomes_and_notes(comparison: tuple[Path, dict[str, Any]]) -> None:
    _, found = comparison
    assert found["outcomes"] == {"valid in both": 72, "failed in both": 0, "fixed in B": 0,
                                 "broken in B": 0}
    assert found["notes"] == ["72 samples paired by id"]


def test_runs_on_other_data_are_not_paired(demo_runs: DemoRuns) -> None:
    line = one_line_error(["compare", str(demo_runs.identity), str(demo_runs.other_data)])
    assert "different dataset hash" in line and "same task and data" in line


def test_runs_of_other_tasks_are_refused_with_the_whole_task_names(
    demo_runs: DemoRuns, tmp_path: Path
) -> None:
    other = edited_copy(demo_runs.identity, tmp_path / "other", task="svgenius-style-transfer")
    line = one_line_error(["compare", str(demo_runs.oracle), str(other)])
    assert "different task svgeditbench vs svgenius-style-transfer;" in line

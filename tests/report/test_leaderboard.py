"""``svgeval leaderboard``: CSV equal to results.json, SVGEditBench's Table 1 in Markdown, best
values by declared direction, and runs on other data or task versions kept apart with the
reason."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from report_runs import DemoRuns, edited_copy, invoke, invoke_streams, one_line_error
from support.shared_paths import shared_release

from svgeval.tasks import all_tasks
from svgeval.tasks.tables import MetricRowsTable

# Table 1 of Nishina & Matsui (CVPRW 2024): its rows, in its order.
TABLE_1 = [
    ("Change Color", "MSE", "change_color/mse"),
    ("Set Contour", "MSE", "set_contour/mse"),
    ("Compression", "MSE", "compression/mse"),
    ("Compression", "Compression ratio", "compression/ratio"),
    ("Upside-Down", "MSE", "upside_down/mse"),
    ("Transparency", "MSE", "transparency/mse"),
    ("Crop to Half", "MSE", "crop_to_half/mse"),
]


def results(run: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((run / "results.json").read_text(encoding="utf-8"))
    return loaded


def leaderboard(*args: str) -> str:
    code, out, err = invoke_streams(["leaderboard", *args])
    assert code == 0, out + err
    return out


def check_csv_equals_results(runs: list[Path]) -> None:
    rows = list(csv.DictReader(io.StringIO(leaderboard(*map(str, runs), "--format", "csv"))))
    assert [row["run"] for row in rows] == [run.name for run in runs]
    for row, run in zip(rows, runs):
        expected = results(run)
        assert row["model"] == expected["model"] and int(row["n"]) == expected["n"]
        assert int(row["n_expected"]) == int(row["n_answered"]) == expected["n_expected"]
        metrics = {key: value for key, value in row.items()
                   if key not in ("run", "model", "n", "n_expected", "n_answered", "n_valid",
                                  "complete")}
        assert set(metrics) == set(expected["metrics"])
        for key, text in metrics.items():
            value = expected["metrics"][key]
            assert (float(text) if text else None) == value, key


def table_1_rows(markdown: str) -> list[list[str]]:
    lines = [line for line in markdown.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]


def expected_table_1(identity: dict[str, Any], oracle: dict[str, Any]) -> list[list[str]]:
    """Table 1 written by hand from the two results: MSE to four decimals, the ratio in
    percent, the oracle's value in bold where it is below identity's (identity, the No Edit
    baseline, is never marked, and equalling it is no win)."""
    rows = [["Task", "Metric", "identity", "oracle"]]
    for task, metric, key in TABLE_1:
        values = [identity["metrics"][key], oracle["metrics"][key]]
        texts = [f"{v * 100:.2f}%" if metric != "MSE" else f"{v:.4f}" for v in values]
        if values[1] < values[0]:
            texts[1] = f"**{texts[1]}**"
        rows.append([task, f"{metric} ↓", *texts])
    return rows


def test_csv_is_results_json_exactly(demo_runs: DemoRuns) -> None:
    check_csv_equals_results([demo_runs.identity, demo_runs.oracle])


def test_markdown_is_table_1(demo_runs: DemoRuns) -> None:
    markdown = leaderboard(str(demo_runs.identity), str(demo_runs.oracle))
    assert "(Table 1 layout)" in markdown
    expected = expected_table_1(results(demo_runs.identity), results(demo_runs.oracle))
    assert table_1_rows(markdown) == expected


@pytest.mark.e2e
@pytest.mark.shared_data
def test_released_identity_and_oracle(tmp_path: Path) -> None:
    data = shared_release("svgeditbench")
    runs = [tmp_path / "identity", tmp_path / "oracle"]
    for run in runs:
        code, output = invoke(["run", "svgeditbench", "--data", str(data), "--model", run.name,
                               "--out", str(run)])
        assert code == 0, output
    check_csv_equals_results(runs)
    markdown = leaderboard(*map(str, runs))
    rows = table_1_rows(markdown)
    assert rows == expected_table_1(results(runs[0]), results(runs[1]))
    # the paper's "No Edit" column, never marked best
    assert [row[2] for row in rows[1:]] == [
        "0.0702", "0.0286", "0.0000", "100.00%", "0.0878", "0.0402", "0.1174"
    ]


def test_other_data_is_a_separate_table_with_the_reason(demo_runs: DemoRuns) -> None:
    code, out, err = invoke_streams(["leaderboard", str(demo_runs.identity),
                                     str(demo_runs.oracle), str(demo_runs.other_data)])
    assert code == 0, err
    tables = [table_1_rows(part) for part in out.split("**svgeditbench")[1:]]
    assert [rows[0][2:] for rows in tables] == [["identity", "oracle"], ["id"]]
    assert "different data" in err and str(demo_runs.other_data) in err


def test_another_task_version_is_a_separate_table(demo_runs: DemoRuns, tmp_path: Path) -> None:
    changed = edited_copy(demo_runs.oracle, tmp_path / "v2", task_version="2")
    code, out, err = invoke_streams(["leaderboard", str(demo_runs.identity), str(changed)])
    assert code == 0 and out.count("(Table 1 layout)") == 2
    assert "task version 2, not 1" in err


def test_latex_and_html_mark_the_best(demo_runs: DemoRuns) -> None:
    runs = [str(demo_runs.identity), str(demo_runs.oracle)]
    latex = leaderboard(*runs, "--format", "latex", "--layout", "flat")
    assert r"change\_color/mse $\downarrow$" in latex
    assert r"\textbf{0.0000}" in latex and r"\begin{tabular}" in latex
    page = leaderboard(*runs, "--format", "html")
    assert page.startswith("<!DOCTYPE html>") and '<td class="best"><b>0.0000</b></td>' in page


def test_plots_of_metric_by_group(demo_runs: DemoRuns, tmp_path: Path) -> None:
    leaderboard(str(demo_runs.identity), str(demo_runs.oracle), "--plots", str(tmp_path))
    for name in ("mse", "mse_all", "ratio", "ratio_all"):
        assert Image.open(tmp_path / f"{name}.png").format == "PNG"
        assert (tmp_path / f"{name}.svg").read_text(encoding="utf-8").lstrip().startswith("<?xml")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--task", "svgenius-bugfix"], "none of the 1 runs is a svgenius-bugfix run"),
        (["--format", "xlsx"], "--format xlsx: choose one of md, csv, html, latex"),
        (["--layout", "wide"], "--layout wide: choose one of auto, paper, flat"),
    ],
)
def test_bad_arguments_are_one_line(demo_runs: DemoRuns, args: list[str], message: str) -> None:
    assert message in one_line_error(["leaderboard", str(demo_runs.identity), *args])


def test_every_declared_paper_table_reads_metrics_its_task_reports() -> None:
    declared = {name: task for name, task in all_tasks().items() if task.paper_table is not None}
    assert set(declared) == {"svgeditbench", "svgenius-understanding", "svgenius-bugfix",
                             "svgenius-optimize", "svgenius-style-edit"}
    for name, task in declared.items():
        table = task.paper_table
        keys = ([row.metric for row in table.rows] if isinstance(table, MetricRowsTable)
                else [metric for metric, _ in table.metrics])
        assert set(keys) <= set(task.metrics), name


def test_a_limited_run_is_labelled_and_never_ranked_against_more_samples(
    demo_runs: DemoRuns, tmp_path: Path
) -> None:
    """A ``--limit 2`` oracle run beside a full run of the same model's answers from a replay
    file that left one answer unedited: the full run is best on every row, the limited one is
    labelled with its sample count (it was bolded on 3 of 7 rows when it was not)."""
    records = [json.loads(line) for line in
               (demo_runs.oracle / "responses.jsonl").read_text(encoding="utf-8").splitlines()]
    identity = {json.loads(line)["id"]: json.loads(line)["response"] for line in
                (demo_runs.identity / "responses.jsonl").read_text(encoding="utf-8").splitlines()}
    # the last sample of each group unedited: the full run is worse than the oracle there
    last = {record["group"]: record["id"] for record in
            (json.loads(line) for line in
             (demo_runs.oracle / "samples.jsonl").read_text(encoding="utf-8").splitlines())}
    replay = tmp_path / "answers.jsonl"
    replay.write_text("".join(
        json.dumps({"id": r["id"], "response": identity[r["id"]] if r["id"] in last.values()
                    else r["response"]}) + "\n" for r in records), encoding="utf-8")
    data = json.loads((demo_runs.oracle / "config.json").read_text())["data"]
    full, limited = tmp_path / "full", tmp_path / "limited"
    for out, extra in ((full, ["--model", f"replay:{replay}"]),
                       (limited, ["--model", "oracle", "--limit", "2"])):
        code, output = invoke(["run", "svgeditbench", "--data", data, "--out", str(out), *extra])
        assert code == 0, output
    assert results(limited)["n_dataset"] == 72 and results(limited)["n_expected"] == 12
    for format_ in ("md", "html", "latex"):
        text = leaderboard(str(full), str(limited), "--format", format_)
        assert "limited (12 of 72 samples)" in text
        assert "limited ran 12 of 72 samples" in text
    lines = leaderboard(str(full), str(limited), "--format", "md").splitlines()
    rows = [line for line in lines if line.startswith("| ") and "MSE" in line]
    moved = [row for row in rows if "Compression ratio" not in row and "| Compression |" not in row]
    assert len(moved) == 5
    for row in moved:  # the full run's value is marked, the smaller run's never
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert cells[2].startswith("**") and not cells[3].startswith("**"), row

"""Run directories whose files are not all of one run: another run's ``results.json`` or
``config.json`` beside the records is refused with one line by the reports and ``score``, and a
last record cut short by a kill is reported, not dropped in silence."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from report_runs import DemoRuns, invoke, invoke_streams, one_line_error


def copy(run: Path, to: Path) -> Path:
    shutil.copytree(run, to)
    return to


def files(run: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(run.iterdir()) if path.is_file()}


def test_results_of_another_task_beside_the_records_are_refused(
    demo_runs: DemoRuns, tmp_path: Path
) -> None:
    run = copy(demo_runs.identity, tmp_path / "run")
    results = json.loads((run / "results.json").read_text())
    # the results.json of a VectorGym run, copied in by hand
    results.update(task="vectorgym-text2svg", model="openai:gpt-4o")
    (run / "results.json").write_text(json.dumps(results))
    for command in (["report", str(run)], ["leaderboard", str(run)],
                    ["compare", str(demo_runs.oracle), str(run)]):
        line = one_line_error(command)
        assert ("results.json and config.json are of different runs (task 'vectorgym-text2svg' "
                "in results.json, 'svgeditbench' in config.json; model 'openai:gpt-4o' in "
                "results.json, 'identity' in config.json)") in line
        assert f"`svgeval score {run}`" in line
    assert not (run / "report").exists()


def test_results_counting_samples_the_records_lack_are_refused(
    demo_runs: DemoRuns, tmp_path: Path
) -> None:
    run = copy(demo_runs.identity, tmp_path / "run")
    lines = (run / "samples.jsonl").read_text().splitlines()
    kept = [line for line in lines if json.loads(line)["group"] != "crop_to_half"]
    (run / "samples.jsonl").write_text("\n".join(kept) + "\n")  # a run without one subtask
    line = one_line_error(["leaderboard", str(run)])
    assert "results.json counts 12 samples in group crop_to_half, samples.jsonl holds 0" in line


def test_config_of_another_run_beside_the_records_is_refused(
    demo_runs: DemoRuns, tmp_path: Path
) -> None:
    run = copy(demo_runs.identity, tmp_path / "run")
    # the config.json of the same model on other data (its colours drawn with another seed)
    shutil.copyfile(demo_runs.other_data / "config.json", run / "config.json")
    before = files(run)
    assert "records answer other prompts than the data its config.json names" in (
        one_line_error(["report", str(run)]))
    line = one_line_error(["score", str(run)])
    assert "answers in" in line and "answer other prompts than the data its config.json" in line
    assert files(run) == before  # nothing asked, nothing written


def test_a_last_record_cut_short_is_reported(demo_runs: DemoRuns, tmp_path: Path) -> None:
    run = copy(demo_runs.identity, tmp_path / "run")
    text = (run / "samples.jsonl").read_text()
    (run / "samples.jsonl").write_text(text[: len(text) - 200])  # a kill cut the last line
    code, _, err = invoke_streams(["report", str(run), "--render-workers", "2"])
    assert code == 0, err
    warning = (f"warning: {run / 'samples.jsonl'} ends with a line cut short (a write "
               f"interrupted by a kill), left out: 71 samples are shown, results.json counts 72")
    assert warning in err and "(71 samples;" in err
    page = (run / "report" / "index.html").read_text(encoding="utf-8")
    assert "left out: 71 samples are shown, results.json counts 72" in page
    board = invoke_streams(["leaderboard", str(run)])[1]
    assert "left out: 71 samples are shown, results.json counts 72" in board


def test_demo_run_folders_stay_inside_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = tmp_path / "first"
    assert invoke(["demo", "--out", str(first)])[0] == 0
    answers = [json.loads(line) for line in
               (first / "run-identity" / "responses.jsonl").read_text().splitlines()]
    (tmp_path / "x.jsonl").write_text("".join(
        json.dumps({"id": a["id"], "response": a["response"]}) + "\n" for a in answers))
    work = tmp_path / "a" / "b" / "c"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    code, output = invoke(["demo", "--out", "d", "--model", "replay:../../../x.jsonl"])
    assert code == 0, output
    assert sorted(path.name for path in work.iterdir()) == ["d"]  # nothing beside --out
    runs = [path for path in (work / "d").iterdir() if path.name.startswith("run-")]
    assert [path.name for path in runs] == ["run-replay_.._.._.._x.jsonl"]
    assert (runs[0] / "results.json").exists()


def test_a_run_with_a_pooled_group_opens(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """VGBench's (and SGP-Bench's) results count every sample again in the pooled group
    ``all``, which no record names: the reports open such a run (they refused it, asking for a
    `svgeval score` that could not help), and still refuse one whose records are short."""
    monkeypatch.setenv("SVGEVAL_CACHE", str(tmp_path / "cache"))
    runs = [tmp_path / model for model in ("oracle", "empty")]
    for run in runs:
        code, output = invoke(["run", "vgbench-vgqa", "--data", "builtin", "--model", run.name,
                               "--out", str(run)])
        assert code == 0, output
    assert json.loads((runs[0] / "results.json").read_text())["counts"]["all"]["n"] == 6
    for command in (["report", str(runs[0])], ["leaderboard", *map(str, runs)],
                    ["compare", *map(str, runs)]):
        code, output = invoke(command)
        assert code == 0, output
    short = copy(runs[0], tmp_path / "short")
    lines = (short / "samples.jsonl").read_text().splitlines()
    (short / "samples.jsonl").write_text("\n".join(lines[:-2]) + "\n")
    assert ("counts 2 samples in group shape, samples.jsonl holds 0"
            in one_line_error(["leaderboard", str(short)]))

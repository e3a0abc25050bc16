"""What the command line says: every message exactly as written (no markup, no emoji codes), the
advice that fits the command, both values of a refused resume, what a resume reuses, counts as
integers, a readable summary however many metrics, and a "did you mean" for a mistyped task."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console
from support.fake_openai_server import FakeOpenAIServer
from support.style_transfer_data import style_transfer_items, write_items
from test_cli_runs import invoke, one_line_error, run_args

from svgeval.builders.svgeditbench.builder import build_cases, write_release
from svgeval.cli.execute import print_summary
from svgeval.models import load_model
from svgeval.report.summary import summary_table
from svgeval.runner import Results, RunDir, Runner, RunSettings
from svgeval.svg.demo_corpus import write_demo_corpus
from svgeval.tasks import get_task
from svgeval.tasks.base import CommonOptions

INSTALL = 'install the model extra: pip install -e ".[models]"'


def results(task: str, model: str, metrics: dict[str, float | None]) -> Results:
    groups = {key.split("/", 1)[0] for key in metrics}
    return Results(task=task, task_version="1", model=model, n=6, n_expected=6, n_valid=6,
                   complete=True, metrics=metrics, svgeval_version="0",
                   counts={group: {"n": 2, "n_invalid": 0} for group in groups})


def printed(table: object) -> str:
    console = Console(width=10_000, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(table)
    return console.export_text()


def test_an_error_prints_its_text_exactly(demo_data: Path, tmp_path: Path) -> None:
    replay = tmp_path / 'openai-compatible:m: [models] ".[models]".jsonl'
    line = one_line_error(run_args(demo_data, tmp_path / "r", "--model", f"replay:{replay}"))
    assert f"cannot read replay file {replay}:" in line


def test_warnings_print_their_text_exactly_on_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task = get_task("svgeditbench")(CommonOptions(data=tmp_path))
    runner = Runner(task, load_model("identity"), RunDir(tmp_path / "run"), RunSettings())
    found = results("svgeditbench", "openai-compatible:m:x", {"change_color/mse": 0.5})
    reason = f"{INSTALL}; " + ", ".join(["a long reason"] * 20)
    found.not_computed["clip"] = reason
    print_summary(runner, found)
    assert f"warning: not computed: clip: {reason}" in capsys.readouterr().err.splitlines()


def test_summary_cells_and_title_are_plain_text() -> None:
    found = results("svgenius-understanding", "replay:[bold]x[/bold]:m:.jsonl",
                    {"easy/acc": 50.0, "easy/n_unparsed": 186.0})
    text = printed(summary_table(found))
    title = " ".join(" ".join(text.splitlines()[:2]).split())  # wrapped to the table's width
    assert title == "svgenius-understanding · replay:[bold]x[/bold]:m:.jsonl"
    cells = [cell.strip() for cell in text.splitlines()[5].split("│")]
    assert cells[1:-1] == ["easy", "2", "0", "50.0000", "186"]  # a count is an integer


def test_a_wide_summary_is_printed_with_one_row_per_metric() -> None:
    task = get_task("svgenius-text2svg")
    keys = [f"{tier}/{name}" for tier in ("easy", "medium", "hard") for name in task.metrics]
    text = printed(summary_table(results(task.name, "oracle", dict.fromkeys(keys, 100.0))))
    assert max(len(line) for line in text.splitlines()) <= 120  # svgeval.report.summary.WIDE
    assert "│ pss ↑" in text and "easy" in text.splitlines()[2]


def test_an_unknown_task_suggests_the_closest_names(tmp_path: Path) -> None:
    line = one_line_error(["run", "svgeditbnch", "--out", str(tmp_path / "r")])
    assert "unknown task 'svgeditbnch'; did you mean 'svgeditbench'" in line


@pytest.fixture()
def other_data(tmp_path: Path) -> Path:
    """The demo cases with their colours drawn with another seed: other data."""
    names = write_demo_corpus(tmp_path / "icons5")
    cases = build_cases(sorted((tmp_path / "icons5").glob("*.svg")), seed=5, names=names)
    write_release(cases, tmp_path / "data5")
    return tmp_path / "data5"


def test_refusals_name_both_values_and_advise_for_the_command(
    demo_data: Path, other_data: Path, tmp_path: Path
) -> None:
    out = tmp_path / "r"
    assert invoke(run_args(demo_data, out, "--limit", "1"))[0] == 0
    line = one_line_error(run_args(demo_data, out, "--model", "oracle", "--resume"))
    assert 'a different model "identity" in the directory, "oracle" now; resume with' in line
    line = one_line_error(["score", str(out), "--data", str(other_data)])
    assert "a different dataset_hash" in line and "pass --data with the run's data" in line
    assert "--out" not in line and "resume" not in line


def test_a_second_run_says_what_the_folder_holds(
    demo_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    args = ["run", "svgeditbench", "--data", str(demo_data), "--limit", "1"]
    assert invoke(args)[0] == 0
    line = one_line_error(args)
    assert line.startswith("error: runs/latest already holds a svgeditbench run of identity")
    assert "6 samples recorded, results.json written); pass --resume" in line


def test_a_resume_says_what_it_reuses(demo_data: Path, tmp_path: Path) -> None:
    out = tmp_path / "r"
    assert invoke(run_args(demo_data, out, "--limit", "1"))[0] == 0
    code, lines = invoke(run_args(demo_data, out, "--resume"))
    assert code == 0
    assert "resume: 6 of 72 samples recorded (kept), 0 cached answers to score, 66 to ask" in lines


def test_score_asks_no_model_and_shows_no_token_rate(demo_data: Path, tmp_path: Path) -> None:
    out = tmp_path / "r"
    with FakeOpenAIServer() as server:
        args = run_args(demo_data, out, "--limit", "1", "--model", "openai-compatible:m",
                        "--base-url", server.base_url)
        code, lines = invoke(args)
    assert code == 0 and any("tok/s" in line for line in lines)  # it asked a model
    code, lines = invoke(["score", str(out)])
    assert code == 0
    assert "score: 6 cached answers to score, 0 samples without one stay missing; no model is " \
           "asked" in lines
    assert "6/6 samples" in "\n".join(lines) and not any("tok/s" in line for line in lines)


def test_a_baseline_without_an_answer_says_so_before_running(tmp_path: Path) -> None:
    items = write_items(tmp_path / "st.json", style_transfer_items(4))
    code, lines = invoke(["run", "svgenius-style-transfer", "--set", f"file={items}",
                          "--model", "oracle", "--out", str(tmp_path / "r")])
    assert code == 0, lines
    assert lines[0] == ("note: oracle on svgenius-style-transfer: this baseline has no answer "
                        "for this task (no reference answer); they are scored as an empty answer "
                        "and counted as failed: extract")

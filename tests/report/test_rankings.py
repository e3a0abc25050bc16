"""Rankings that cannot mislead: the best value is never an incomplete run's, never a degenerate
baseline's nor one a degenerate baseline reaches, RLD is best at 0, and a run that lacks answers
says so (n answered / n) in every table and page."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from report_runs import DemoRuns, invoke, invoke_streams
from support.shared_paths import shared_release
from test_leaderboard import table_1_rows

from svgeval.tasks.base import CommonOptions
from svgeval.tasks.svgeditbench import SvgEditBench


@dataclass(frozen=True)
class Ranked:
    """The No Edit run, a complete run that edits only the colour changes (the reference answer
    there, the input unchanged elsewhere) and a run whose replay file lacks 30% of the answers
    (the reference answer for the rest)."""

    identity: Path
    mixed: Path
    partial: Path
    answered: int
    """Answers in the partial run's replay file (of 72)."""


@pytest.fixture(scope="module")
def ranked(demo_runs: DemoRuns, tmp_path_factory: pytest.TempPathFactory) -> Ranked:
    root = tmp_path_factory.mktemp("ranked")
    data = Path(json.loads((demo_runs.identity / "config.json").read_text())["data"])
    samples = SvgEditBench(CommonOptions(data=data)).load()
    mixed = [{"id": s.id, "response": s.reference if s.group == "change_color"
              else f"```svg\n{s.input_svg}\n```"} for s in samples]
    partial = [{"id": s.id, "response": s.reference}
               for index, s in enumerate(samples) if index % 10 >= 3]
    for name, lines in (("mixed", mixed), ("partial", partial)):
        replay = root / f"{name}.jsonl"
        replay.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        code, output = invoke(["run", "svgeditbench", "--data", str(data), "--model",
                               f"replay:{replay}", "--out", str(root / name),
                               "--render-workers", "2"])
        assert code in (0, 1), output  # a run that lacks answers may exit non-zero
    return Ranked(demo_runs.identity, root / "mixed", root / "partial", len(partial))


def runs(ranked: Ranked) -> list[str]:
    return [str(ranked.identity), str(ranked.mixed), str(ranked.partial)]


def test_table_1_marks_only_what_a_complete_run_does_better_than_no_edit(ranked: Ranked) -> None:
    code, out, err = invoke_streams(["leaderboard", *runs(ranked)])
    assert code == 0, err
    rows = table_1_rows(out)
    bold = {(row[0], row[1]): [cell.startswith("**") for cell in row[2:]] for row in rows[1:]}
    # mixed beats No Edit on the colour changes only; everywhere else it answered as No Edit
    # does, and the partial run (MSE 0 on the samples it answered) is never marked
    assert bold.pop(("Change Color", "MSE ↓")) == [False, True, False]
    assert all(marks == [False, False, False] for marks in bold.values()), bold
    assert rows[0] == ["Task", "Metric", "identity", "mixed",
                       f"partial (incomplete: {ranked.answered}/72 answered)"]
    assert f"partial is incomplete: {ranked.answered} of 72 samples answered" in out
    assert "degenerate baselines (answers made without doing the task): identity" in out


def test_every_format_marks_the_incomplete_run(ranked: Ranked) -> None:
    marker = f"incomplete: {ranked.answered}/72 answered"
    html = invoke_streams(["leaderboard", *runs(ranked), "--format", "html"])[1]
    latex = invoke_streams(["leaderboard", *runs(ranked), "--format", "latex"])[1]
    flat = invoke_streams(["leaderboard", *runs(ranked), "--layout", "flat"])[1]
    for text in (html, latex, flat):
        assert marker in text
    assert html.count('class="best"') == latex.count(r"\textbf{") == 1
    rows = list(csv.DictReader(io.StringIO(
        invoke_streams(["leaderboard", *runs(ranked), "--format", "csv"])[1])))
    assert [(row["run"], row["n_answered"], row["n_expected"]) for row in rows] == [
        ("identity", "72", "72"), ("mixed", "72", "72"), ("partial", str(ranked.answered), "72")]


def test_compare_and_the_report_mark_the_incomplete_run(ranked: Ranked, tmp_path: Path) -> None:
    marker = f"incomplete: {ranked.answered}/72 answered"
    code, out, err = invoke_streams(["compare", str(ranked.mixed), str(ranked.partial), "--out",
                                     str(tmp_path / "compare"), "--render-workers", "2"])
    assert code == 0, err
    title = " ".join(out.split())  # the console wraps the title to the table's width
    assert f"B = partial (replay:{ranked.partial.parent / 'partial.jsonl'}, {marker})" in title
    assert f"B is {marker}" in err
    assert marker in (tmp_path / "compare" / "index.html").read_text(encoding="utf-8")
    code, _, err = invoke_streams(["report", str(ranked.partial), "--out", str(tmp_path / "r"),
                                   "--render-workers", "2"])
    assert code == 0, err
    page = (tmp_path / "r" / "index.html").read_text(encoding="utf-8")
    assert f"svgeditbench · replay:{ranked.partial.parent / 'partial.jsonl'} · {marker}" in page
    assert f"<dt>answered</dt><dd>{ranked.answered} of 72</dd>" in page


@pytest.mark.shared_data
def test_rld_ranks_the_oracle_above_no_edit_everywhere(tmp_path: Path) -> None:
    data = shared_release("svgenius")
    for model in ("identity", "oracle"):
        code, output = invoke(["run", "svgenius-style-edit", "--data", str(data), "--limit", "2",
                               "--model", model, "--out", str(tmp_path / model)])
        assert code == 0, output
    results = {model: json.loads((tmp_path / model / "results.json").read_text())["metrics"]
               for model in ("identity", "oracle")}
    assert all(results["identity"][f"{tier}/rld"] < 0 == results["oracle"][f"{tier}/rld"]
               for tier in ("easy", "medium", "hard"))  # No Edit changes less than the edit
    out = invoke_streams(["leaderboard", str(tmp_path / "identity"), str(tmp_path / "oracle")])[1]
    header, _, identity, oracle = (line.split("|")[1:-1] for line in out.splitlines()
                                   if line.startswith("|"))
    rld = [index for index, name in enumerate(header) if name.strip().startswith("RLD")]
    assert [oracle[i].strip() for i in rld] == ["**0.00**"] * 3
    assert not any("**" in identity[i] for i in rld)
    assert [header[i].strip() for i in rld] == ["RLD easy →0", "RLD medium →0", "RLD hard →0"]
    code, out, err = invoke_streams(["compare", str(tmp_path / "identity"),
                                     str(tmp_path / "oracle"), "--out", str(tmp_path / "c")])
    assert code == 0, err
    found = json.loads((tmp_path / "c" / "comparison.json").read_text())["metrics"]
    shares = {m["group"]: m["better"] for m in found if m["metric"] == "rld"}
    assert shares == {"easy": 1.0, "medium": 1.0, "hard": 1.0, "all": 1.0}

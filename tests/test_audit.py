"""``svgeval audit``: the baselines' answers, the share of the way to the oracle, and the flags
(style-edit ``acc`` is reached by ``identity``, ``acc_strict`` is not)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from lxml import etree
from support.shared_paths import shared_release
from typer.testing import CliRunner

from svgeval.audit import (
    BASELINES,
    audit_rows,
    baseline_answers,
    blank_canvas,
    flip_attribute,
    run_baselines,
)
from svgeval.cli import app
from svgeval.run_request import RunRequest
from svgeval.runner import Results
from svgeval.svg.extract import extract_svg
from svgeval.tasks import get_task
from svgeval.tasks.base import Sample

pytestmark = pytest.mark.e2e  # see the marker in pyproject.toml

cli = CliRunner()
SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24" viewBox="0 0 24 24">'
       '<rect x="2" y="2" width="10" height="10" fill="#ff0000"/></svg>')


def sample(i: int, group: str) -> Sample:
    return Sample(id=f"s{i}", group=group, messages=[], reference=f"Answer: {SVG} {i}",
                  input_svg=SVG, target={})


def test_baselines_answer_every_sample_and_shuffle_within_groups() -> None:
    samples = [sample(i, "a" if i < 4 else "b") for i in range(7)]
    answers = baseline_answers(samples, seed=3)
    assert set(answers) == set(BASELINES)
    assert all(len(by_id) == 7 for by_id in answers.values())
    references = {s.id: s.reference for s in samples}
    for s in samples:
        other = answers["shuffled"][s.id]
        assert other != references[s.id]
        assert int(other.rsplit(" ", 1)[1]) in (range(4) if s.group == "a" else range(4, 7))
    assert answers["oracle"]["s0"] == references["s0"]
    assert extract_svg(answers["identity"]["s0"]).svg == SVG
    no_input = baseline_answers([Sample("g", "x", [], f"Answer: {SVG}", target={}), sample(1, "x")])
    assert no_input["identity"]["g"] == no_input["flipped"]["g"] == ""
    assert extract_svg(no_input["blank"]["g"]).svg is not None


def test_an_audit_folder_of_other_answers_is_refused(demo_data: Path, tmp_path: Path) -> None:
    (tmp_path / "oracle.replay.jsonl").write_text('{"id": "x", "response": ""}\n')
    with pytest.raises(ValueError, match="holds an audit with other answers"):
        run_baselines(RunRequest(task="svgeditbench", data=demo_data, out_dir=tmp_path, limit=1))


def test_blank_canvas_keeps_the_size_and_flip_changes_one_attribute() -> None:
    blank = etree.fromstring(blank_canvas(SVG).encode())
    assert (blank.get("width"), blank.get("height"), blank.get("viewBox")) == ("24", "24",
                                                                                "0 0 24 24")
    flipped = etree.fromstring(flip_attribute(SVG, random.Random(0)).encode())
    original = etree.fromstring(SVG.encode())
    changed = [(a.tag, k) for a, b in zip(original.iter(), flipped.iter())
               for k in a.attrib if a.get(k) != b.get(k)]
    assert len(changed) == 1
    assert flip_attribute("not svg", random.Random(0)) == "not svg"


def results(values: dict[str, float | None]) -> Results:
    return Results(task="t", task_version="1", model="m", n=1, n_expected=1, n_valid=1,
                   complete=True, metrics=values, counts={}, svgeval_version="0")


def test_share_of_the_way_follows_the_metric_direction() -> None:
    task = get_task("svgenius-style-edit")
    by_baseline = {name: results({"easy/acc": v, "easy/rld": r, "easy/n_rmse_undefined": 1.0})
                   for name, v, r in zip(BASELINES, [100, 100, 20, 0, 40, 60],
                                         [0.0, 10.0, 40.0, 20.0, 5.0, 30.0])}
    rows = {row.key: row for row in audit_rows(task, by_baseline)}
    assert "easy/n_rmse_undefined" not in rows  # a count, not a score
    acc = rows["easy/acc"]
    assert acc.shares == pytest.approx(dict(zip(BASELINES, [1.0, 1.0, 0.2, 0.0, 0.4, 0.6])))
    assert acc.flagged_by == ("identity", "flipped")
    rld = rows["easy/rld"]  # lower is better: worst is the highest (40)
    assert rld.shares["identity"] == pytest.approx(0.75) and rld.shares["empty"] == 0.0
    assert rld.flagged_by == ("identity", "shuffled")


def test_audit_command_runs_svgeditbench_on_the_demo_cases(demo_data: Path,
                                                            tmp_path: Path) -> None:
    table = tmp_path / "audit.md"
    result = cli.invoke(app, ["audit", "svgeditbench", "--data", str(demo_data), "--limit", "2",
                              "--out", str(tmp_path / "runs"), "--markdown", str(table)])
    assert result.exit_code == 0, result.output
    text = table.read_text()
    assert "| metric | dir | oracle | identity % |" in text and "flagged metrics:" in text
    assert all((tmp_path / "runs" / name / "results.json").exists() for name in BASELINES)


@pytest.mark.shared_data
def test_style_edit_acc_is_flagged_and_acc_strict_is_not(tmp_path: Path) -> None:
    request = RunRequest(task="svgenius-style-edit", data=shared_release("svgenius"),
                         out_dir=tmp_path, limit=30)  # 30 a tier: the flags hold per sample
    rows = audit_rows(get_task(request.task), run_baselines(request))
    assert {"acc", "acc_strict"} <= {row.key.rsplit("/", 1)[1] for row in rows}
    for row in rows:
        metric = row.key.rsplit("/", 1)[1]
        if metric == "acc":
            assert "identity" in row.flagged_by and row.shares["identity"] == 1.0
        if metric == "acc_strict":
            assert not row.flagged

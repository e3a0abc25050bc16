"""Sharded runs, ``svgeval merge`` and ``--epochs`` from the command line: shards merged equal
the unsharded run record for record, merges of different runs or disagreeing shards are refused
with one line, an interrupted shard resumes, and epochs grow with --resume."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from support.fake_openai_server import FakeOpenAIServer, echo_svg
from test_cli_runs import invoke, one_line_error

from svgeval.builders.svgeditbench.builder import build_cases, write_release
from svgeval.runner.units import epoch_seed
from svgeval.svg.demo_corpus import write_demo_corpus

FAST = ["--limit", "1", "--render-workers", "1"]
"""One sample per group (6 samples) and one render process: a few seconds per run."""


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("demo")
    names = write_demo_corpus(root / "icons")
    write_release(build_cases(sorted((root / "icons").glob("*.svg")), names=names), root / "data")
    return root / "data"


def run_args(data: Path, out: Path, *extra: str) -> list[str]:
    return ["run", "svgeditbench", "--data", str(data), "--out", str(out), *FAST, *extra]


@pytest.fixture(scope="module")
def runs(data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same run of 2 epochs unsharded (``full``) and as shards 0/2 and 1/2."""
    root = tmp_path_factory.mktemp("runs")
    for name, extra in (("full", []), ("s0", ["--shard", "0/2"]), ("s1", ["--shard", "1/2"])):
        code, lines = invoke(run_args(data, root / name, "--epochs", "2", *extra))
        assert code == 0, lines
    return root


def records(path: Path) -> dict[tuple[str, int], dict[str, Any]]:
    """The records of a JSONL file by (id, epoch), without when and how fast they were made."""
    by_key = {}
    for line in path.read_text().splitlines():
        record = json.loads(line)
        record.pop("created_at")
        record.pop("timing", None)
        by_key[record["id"], record.get("epoch", 1)] = record
    return by_key


def results(run: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((run / "results.json").read_text())
    return loaded


def copy(run: Path, to: Path) -> Path:
    shutil.copytree(run, to)
    return to


def test_shards_merged_equal_the_unsharded_run(runs: Path, tmp_path: Path) -> None:
    shard0, shard1 = records(runs / "s0" / "samples.jsonl"), records(runs / "s1" / "samples.jsonl")
    assert shard0 and shard1 and not set(shard0) & set(shard1)  # a partition of the 12 units
    assert json.loads((runs / "s1" / "config.json").read_text())["settings"]["shard"] == {
        "index": 1, "count": 2}
    code, lines = invoke(["merge", str(runs / "s0"), str(runs / "s1"), "--out", str(tmp_path / "m")])
    assert code == 0, lines
    full, merged = runs / "full", tmp_path / "m"
    for name in ("samples.jsonl", "responses.jsonl"):
        assert records(merged / name) == records(full / name)
        assert len((merged / name).read_text().splitlines()) == 12  # nothing twice
    for key in ("n", "n_expected", "n_valid", "complete", "metrics", "stats", "counts", "epochs"):
        assert results(merged)[key] == results(full)[key], key
    config = json.loads((merged / "config.json").read_text())
    assert "shard" not in config["settings"] and config["settings"]["epochs"] == 2
    # the order of the directories does not matter
    assert invoke(["merge", str(runs / "s1"), str(runs / "s0"), "--out", str(tmp_path / "r")])[0] == 0
    assert (tmp_path / "r" / "samples.jsonl").read_bytes() == (merged / "samples.jsonl").read_bytes()


def test_merging_different_configurations_is_refused_with_one_line(
    runs: Path, tmp_path: Path
) -> None:
    other = copy(runs / "s1", tmp_path / "other")
    config = json.loads((other / "config.json").read_text())
    config["settings"]["seed"] = 7
    (other / "config.json").write_text(json.dumps(config))
    line = one_line_error(["merge", str(runs / "s0"), str(other), "--out", str(tmp_path / "m")])
    assert "seed differs (0 vs 7)" in line and str(runs / "s0") in line and str(other) in line
    assert not (tmp_path / "m").exists()


def test_overlapping_shards_keep_one_copy_and_disagreeing_ones_are_refused(
    runs: Path, tmp_path: Path
) -> None:
    again = copy(runs / "s0", tmp_path / "again")  # the same shard run twice
    out = tmp_path / "m"
    assert invoke(["merge", str(runs / "s0"), str(again), str(runs / "s1"), "--out", str(out)])[0] == 0
    assert records(out / "samples.jsonl") == records(runs / "full" / "samples.jsonl")
    lines = (again / "samples.jsonl").read_text().splitlines()
    changed = json.loads(lines[0])
    changed["response"] = "another answer"
    (again / "samples.jsonl").write_text("\n".join([json.dumps(changed), *lines[1:]]) + "\n")
    line = one_line_error(["merge", str(runs / "s0"), str(again), "--out", str(tmp_path / "x")])
    assert f"sample {changed['id']} epoch {changed.get('epoch', 1)} differs" in line
    assert "response" in line and str(again) in line
    # a unit whose request failed (done again on --resume) gives way to the finished one
    changed["failure"] = {"kind": "model_error", "reason": None, "detail": "HTTP 503"}
    (again / "samples.jsonl").write_text("\n".join([json.dumps(changed), *lines[1:]]) + "\n")
    out = tmp_path / "y"
    assert invoke(["merge", str(again), str(runs / "s0"), "--out", str(out)])[0] == 0
    assert records(out / "samples.jsonl") == records(runs / "s0" / "samples.jsonl")


def test_out_must_be_new_unless_forced_and_a_partial_merge_says_what_is_missing(
    data: Path, runs: Path, tmp_path: Path
) -> None:
    out = tmp_path / "m"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    assert "pass --force" in one_line_error(["merge", str(runs / "s0"), "--out", str(out)])
    assert "one of the directories" in one_line_error(
        ["merge", str(runs / "s0"), "--out", str(runs / "s0")])
    code, lines = invoke(["merge", str(runs / "s0"), "--out", str(out), "--force"])
    assert code == 0, lines
    partial = results(out)
    n_shard1 = len(records(runs / "s1" / "samples.jsonl"))
    assert partial["complete"] is False and partial["n_missing"] == n_shard1
    assert (out / "notes.txt").read_text() == "mine"
    # the merged directory is an unsharded run: --resume completes it
    code, lines = invoke([*run_args(data, out, "--epochs", "2"), "--resume"])
    assert code == 0, lines
    assert records(out / "samples.jsonl") == records(runs / "full" / "samples.jsonl")


def _entries(*folders: Path) -> dict[str, int]:
    """Every entry of ``folders`` with its modification time."""
    found = {}
    for folder in folders:
        for path in folder.iterdir() if folder.is_dir() else ():
            try:
                found[str(path)] = path.stat().st_mtime_ns
            except FileNotFoundError:  # deleted while listed
                found[str(path)] = -1
    return found


def merge_killed_at_its_first_write(args: list[str], *watched: Path) -> None:
    """Run ``svgeval merge ARGS`` in a process and SIGKILL it as soon as it changes anything in
    the ``watched`` folders."""
    before = _entries(*watched)
    process = subprocess.Popen([sys.executable, "-m", "svgeval", "merge", *args],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while _entries(*watched) == before and time.monotonic() < deadline:
        time.sleep(0.001)
    process.kill()
    assert process.wait() == -signal.SIGKILL, "the merge ended before it was killed"


@pytest.mark.e2e  # a process it kills
def test_a_killed_merge_leaves_no_partial_out(runs: Path, tmp_path: Path) -> None:
    out = tmp_path / "m"
    merge_killed_at_its_first_write([str(runs / "s0"), str(runs / "s1"), "--out", str(out)],
                                    tmp_path)
    assert not out.exists()
    code, lines = invoke(["merge", str(runs / "s0"), str(runs / "s1"), "--out", str(out)])
    assert code == 0, lines
    assert [path.name for path in tmp_path.iterdir()] == ["m"]  # nothing left beside it
    assert records(out / "samples.jsonl") == records(runs / "full" / "samples.jsonl")


def test_a_killed_forced_merge_keeps_the_old_out_whole(runs: Path, tmp_path: Path) -> None:
    out = tmp_path / "m"
    assert invoke(["merge", str(runs / "s0"), "--out", str(out)])[0] == 0
    (out / "notes.txt").write_text("mine")
    before = {path.name: path.read_bytes() for path in out.iterdir()}
    args = [str(runs / "s0"), str(runs / "s1"), "--out", str(out), "--force"]
    merge_killed_at_its_first_write(args, tmp_path, out)
    assert {path.name: path.read_bytes() for path in out.iterdir()} == before
    code, lines = invoke(["merge", *args])
    assert code == 0, lines
    assert results(out)["complete"] is True and (out / "notes.txt").read_text() == "mine"
    assert [path.name for path in tmp_path.iterdir()] == ["m"]


def test_a_merge_killed_between_its_two_renames_is_put_right(runs: Path, tmp_path: Path) -> None:
    out = tmp_path / "m"
    assert invoke(["merge", str(runs / "s0"), "--out", str(out)])[0] == 0
    (out / "notes.txt").write_text("mine")
    out.rename(tmp_path / ".m.replaced")  # the old folder moved aside, the new one not yet in
    (tmp_path / ".m.merging").mkdir()
    code, lines = invoke(["merge", str(runs / "s0"), "--out", str(out)])
    assert code == 1 and lines[0] == f"note: {out}: put back, as a merge killed while replacing it left it"
    assert "is not empty; choose a new folder or pass --force" in lines[1]
    assert (out / "notes.txt").read_text() == "mine" and results(out)["complete"] is False
    assert [path.name for path in tmp_path.iterdir()] == ["m"]


def test_an_interrupted_shard_resumes_to_the_same_records(
    data: Path, runs: Path, tmp_path: Path
) -> None:
    shard = copy(runs / "s0", tmp_path / "s0")
    samples = (shard / "samples.jsonl").read_text().splitlines()
    kept = samples[:2]
    (shard / "samples.jsonl").write_text("\n".join(kept) + "\n" + samples[2][:40])  # killed
    responses = (shard / "responses.jsonl").read_text().splitlines()
    (shard / "responses.jsonl").write_text("\n".join(responses[:3]) + "\n")
    (shard / "results.json").unlink()
    args = run_args(data, shard, "--epochs", "2", "--resume")
    assert "holds shard 0/2 of this run; resume with --shard 0/2" in one_line_error(
        [*args, "--shard", "1/2"])
    code, lines = invoke([*args, "--shard", "0/2"])
    assert code == 0, lines
    assert records(shard / "samples.jsonl") == records(runs / "s0" / "samples.jsonl")
    assert (shard / "samples.jsonl").read_text().splitlines()[:2] == kept  # not done again
    assert results(shard)["metrics"] == results(runs / "s0")["metrics"]


@pytest.mark.parametrize(
    ("flag", "message"),
    [
        ("2/2", "--shard 2/2: INDEX must be 0 to COUNT-1"),
        ("0/0", "--shard 0/0: INDEX must be 0 to COUNT-1"),
        ("x", "--shard expects INDEX/COUNT such as 0/2, got 'x'"),
    ],
)
def test_a_bad_shard_is_one_line(data: Path, tmp_path: Path, flag: str, message: str) -> None:
    assert message in one_line_error(run_args(data, tmp_path / "r", "--shard", flag))
    assert not (tmp_path / "r").exists()


def first_epoch_only(body: dict[str, Any]) -> str:
    """The input SVG for epoch 1 (seed 0), no SVG for the others: epochs that differ."""
    return echo_svg(body) if body.get("seed") == 0 else "I cannot."


def test_epochs_grow_with_resume_and_report_each_epoch(data: Path, tmp_path: Path) -> None:
    out = tmp_path / "r"
    with FakeOpenAIServer(reply=first_epoch_only) as server:
        args = run_args(data, out, "--model", "openai-compatible:fake", "--base-url",
                        server.base_url, "--seed", "0")
        assert invoke([*args, "--epochs", "2"])[0] == 0
        assert len(server.chat_requests) == 12
        code, lines = invoke([*args, "--epochs", "3", "--resume"])
        assert code == 0, lines
        assert len(server.chat_requests) == 18  # only epoch 3 was asked for
        seeds = [request.body["seed"] for request in server.chat_requests if request.body]
    assert seeds[12:] == [epoch_seed(0, 3)] * 6  # a fixed seed per epoch, 0 for the first
    assert sorted(seeds[:12]) == sorted([0] * 6 + [epoch_seed(0, 2)] * 6)
    assert len({0, epoch_seed(0, 2), epoch_seed(0, 3)}) == 3
    lines = (out / "samples.jsonl").read_text().splitlines()
    assert len(lines) == 18 and sum('"epoch"' not in line for line in lines) == 6
    by_epoch = [records(out / "samples.jsonl")[key[0], epoch] for key in records(
        out / "samples.jsonl") if key[1] == 1 for epoch in (1, 2, 3)]
    assert [record["failure"] is None for record in by_epoch] == [True, False, False] * 6
    found = results(out)
    assert found["n"] == found["n_expected"] == 18 and found["epochs"]["k"] == 3
    per_epoch = found["epochs"]["metrics"]
    paper = [per_epoch[epoch].get("change_color/mse") for epoch in ("1", "2", "3")]
    assert paper[0] is not None and paper[1] is paper[2] is None  # no usable answer in 2 and 3
    assert found["metrics"]["change_color/mse"] == paper[0]  # the mean over epochs with a value
    assert found["stats"]["change_color/mse"]["n"] == 1
    # a failure's mse_all is the No Edit value, which epoch 1's echo also has
    every = [per_epoch[epoch]["change_color/mse_all"] for epoch in ("1", "2", "3")]
    assert every[0] == every[1] == every[2] == pytest.approx(found["metrics"]["change_color/mse_all"])
    assert found["epochs"]["std"]["change_color/mse_all"] == 0.0
    assert found["counts"]["change_color"]["n"] == 3
    assert found["counts"]["change_color"]["n_invalid"] == 2

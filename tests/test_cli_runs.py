"""The command line as a new user meets it: typed options, checked flags, runs that grow and
resume, replay files, export, and ``score`` that never damages a run."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from support.fake_openai_server import FakeOpenAIServer
from typer.testing import CliRunner

from svgeval.cli import app

cli = CliRunner()


def invoke(args: list[str]) -> tuple[int, list[str]]:
    result = cli.invoke(app, args)
    return result.exit_code, [line for line in result.output.splitlines() if line.strip()]


def one_line_error(args: list[str]) -> str:
    code, lines = invoke(args)
    assert code == 1 and len(lines) == 1 and lines[0].startswith("error:"), lines
    return lines[0]


def run_args(data: Path, out: Path, *extra: str) -> list[str]:
    return ["run", "svgeditbench", "--data", str(data), "--out", str(out), *extra]


def check_model_metric_setting(data: Path, root: Path, flag: str, values: tuple[str, ...],
                               value: str, wrong: str) -> None:
    """A run's model-metric setting (``--precision``, ``--preprocess``, whose choices are
    ``values``, the default first): a wrong value is one line; a run with ``value`` records it
    and leaves the process's environment as it was (the setting travels with the run, not in
    the process); a resume without the flag is refused, naming both; the default is left out of
    ``config.json`` (a run's config keeps its old bytes). The environment variable must say the
    default."""
    name, default = flag.removeprefix("--"), values[0]
    line = one_line_error(run_args(data, root / "wrong", flag, wrong))
    assert line == f"error: {flag} must be one of {', '.join(values)}, got {wrong!r}"
    chosen = root / "chosen"
    before = dict(os.environ)
    code, _ = invoke(run_args(data, chosen, "--model", "identity", "--limit", "2", flag, value))
    assert code == 0 and dict(os.environ) == before
    assert json.loads((chosen / "config.json").read_text())["settings"][name] == value
    line = one_line_error(run_args(data, chosen, "--model", "identity", "--limit", "2",
                                   "--resume"))
    assert f'{name} "{value}" in the directory, "{default}" now' in line
    plain = root / "default"
    assert invoke(run_args(data, plain, "--model", "identity", "--limit", "1"))[0] == 0
    assert name not in json.loads((plain / "config.json").read_text())["settings"]


def test_unknown_option_key_lists_the_valid_keys(demo_data: Path, tmp_path: Path) -> None:
    line = one_line_error(run_args(demo_data, tmp_path / "r", "--set", "extrct=auto"))
    assert "unknown option 'extrct' for svgeditbench" in line and "extract=svgeditbench|auto" in line


def test_invalid_option_value_lists_the_valid_values(demo_data: Path, tmp_path: Path) -> None:
    line = one_line_error(run_args(demo_data, tmp_path / "r", "--set", "extract=autoo"))
    assert "--set extract=autoo: choose one of svgeditbench, auto" in line


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--concurrency", "0"], "--concurrency must be at least 1, got 0"),
        (["--render-timeout", "0"], "--render-timeout must be more than 0, got 0"),
        (["--render-workers", "0"], "--render-workers must be at least 1, got 0"),
        (["--timeout", "-1"], "--timeout must be more than 0, got -1"),
        (["--temperature", "-5"], "--temperature must be at least 0, got -5"),
        (["--temperature", "3"], "--temperature must be at most 2, got 3"),
        (["--max-tokens", "0"], "--max-tokens must be at least 1, got 0"),
        (["--limit", "0"], "--limit must be at least 1, got 0"),
    ],
)
def test_numeric_flags_are_checked_for_every_model(
    demo_data: Path, tmp_path: Path, flags: list[str], message: str
) -> None:
    assert message in one_line_error(run_args(demo_data, tmp_path / "r", *flags))
    assert not (tmp_path / "r").exists()


def test_short_help_works_everywhere() -> None:
    for args in (["-h"], ["run", "-h"], ["svgenius", "-h"], ["svgeditbench", "build", "-h"]):
        result = cli.invoke(app, args)
        assert result.exit_code == 0 and "Usage" in result.output, args


def test_list_tasks_shows_each_tasks_options() -> None:
    output = cli.invoke(app, ["list", "tasks"]).output
    assert "--set extract=svgeditbench|auto (default svgeditbench)" in output
    assert "--set questions=paper|all (default paper)" in output


def test_out_naming_a_file_is_one_line(demo_data: Path, tmp_path: Path) -> None:
    a_file = tmp_path / "taken.txt"
    a_file.write_text("keep me")
    assert "is a file, not a directory" in one_line_error(run_args(demo_data, a_file))
    icons = demo_data.parent / "icons"
    line = one_line_error(["svgeditbench", "build", str(icons), "--out", str(a_file)])
    assert "is a file, not a directory" in line
    assert a_file.read_text() == "keep me"


def run_files(run_dir: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(run_dir.iterdir())}


def test_score_works_from_another_directory_and_a_failure_changes_nothing(
    demo_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    relative = os.path.relpath(demo_data, tmp_path)
    code, _ = invoke(["run", "svgeditbench", "--data", relative, "--out", "run", "--limit", "2"])
    assert code == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    before = run_files(tmp_path / "run")
    code, lines = invoke(["score", str(tmp_path / "run")])
    assert code == 0, lines
    after = json.loads((tmp_path / "run" / "results.json").read_text())
    assert after["n"] == 12 and after["complete"]
    # the data is gone: score fails with one line and leaves every file as it was
    moved = tmp_path / "moved"
    shutil.move(str(demo_data), moved)
    before = run_files(tmp_path / "run")
    assert "--data" in one_line_error(["score", str(tmp_path / "run")])
    assert run_files(tmp_path / "run") == before
    code, lines = invoke(["score", str(tmp_path / "run"), "--data", str(moved)])
    assert code == 0, lines


def test_limit_then_resume_without_limit_asks_each_sample_once(
    demo_data: Path, tmp_path: Path
) -> None:
    with FakeOpenAIServer() as server:
        args = run_args(demo_data, tmp_path / "r", "--model", "openai-compatible:fake",
                        "--base-url", server.base_url)
        assert invoke([*args, "--limit", "2"])[0] == 0
        assert len(server.chat_requests) == 12  # 2 per subtask
        code, lines = invoke([*args, "--resume"])
        assert code == 0, lines
        assert len(server.chat_requests) == 72
    results = json.loads((tmp_path / "r" / "results.json").read_text())
    assert results["n"] == 72 and results["complete"]
    config = json.loads((tmp_path / "r" / "config.json").read_text())
    assert config["settings"]["limit"] is None and config["n_samples"] == 72
    assert config["base_url"] == server.base_url and config["settings"]["concurrency"] == 8
    assert {"svgeval", "cairosvg", "lxml", "numpy"} <= set(config["versions"])


def test_replay_file_with_other_ids_stops_with_an_example_of_each(
    demo_data: Path, tmp_path: Path
) -> None:
    replay = tmp_path / "answers.jsonl"
    replay.write_text("".join(json.dumps({"id": i, "response": "x"}) + "\n" for i in range(72)))
    line = one_line_error(run_args(demo_data, tmp_path / "r", "--model", f"replay:{replay}"))
    assert "answers 0 of 72 samples" in line
    assert "expected ids like 'change_color/" in line and "the file has ids like '0'" in line


def test_export_then_replay_round_trip(demo_data: Path, tmp_path: Path) -> None:
    prompts = tmp_path / "prompts.jsonl"
    code, _ = invoke(["export", "svgeditbench", "--data", str(demo_data), "--out", str(prompts)])
    assert code == 0
    lines = [json.loads(line) for line in prompts.read_text().splitlines()]
    assert len(lines) == 72 and set(lines[0]) == {"id", "group", "messages"}
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps({"id": line["id"], "response": "no"}) + "\n"
                               for line in lines))
    code, _ = invoke(run_args(demo_data, tmp_path / "r", "--model", f"replay:{answers}"))
    assert code == 0
    results = json.loads((tmp_path / "r" / "results.json").read_text())
    assert results["n"] == 72 and results["n_valid"] == 0


def test_summary_table_is_whole_when_piped(demo_data: Path, tmp_path: Path) -> None:
    result = cli.invoke(app, run_args(demo_data, tmp_path / "r"))
    assert result.exit_code == 0
    assert "…" not in result.output
    row = next(line for line in result.output.splitlines() if "crop_to_half" in line)
    assert len(row.split("│")) >= 7  # group, n, invalid, mse, mse_all (+ borders)
    assert "identity answers with the input unchanged" in result.output
    assert "<metric>_all: every sample" in result.output


def test_a_corrupt_record_names_its_file_and_line(demo_data: Path, tmp_path: Path) -> None:
    out = tmp_path / "r"
    assert invoke(run_args(demo_data, out, "--limit", "1"))[0] == 0
    lines = (out / "samples.jsonl").read_text().splitlines()
    lines[2] = lines[2].replace('"id"', '"identifier"')
    (out / "samples.jsonl").write_text("\n".join(lines) + "\n")
    line = one_line_error([*run_args(demo_data, out, "--limit", "1"), "--resume"])
    assert f"{out / 'samples.jsonl'} line 3" in line and "'id'" in line


def test_score_of_an_interrupted_run_keeps_the_rest_missing(
    demo_data: Path, tmp_path: Path
) -> None:
    out = tmp_path / "r"
    assert invoke(run_args(demo_data, out))[0] == 0
    responses = (out / "responses.jsonl").read_text().splitlines()
    (out / "responses.jsonl").write_text("\n".join(responses[:30]) + "\n")
    result = cli.invoke(app, ["score", str(out)])
    assert result.exit_code == 0, result.output
    results = json.loads((out / "results.json").read_text())
    assert results["n"] == 30 and results["n_missing"] == 42 and results["complete"] is False
    assert "42 of 72 samples have no record yet" in result.output and "--resume" in result.output
    assert "replay" not in result.output and results["model_report"] == {}
    assert len((out / "samples.jsonl").read_text().splitlines()) == 30


def test_malformed_svgeditbench_data_is_one_line(demo_data: Path, tmp_path: Path) -> None:
    answer = next((demo_data / "1_ChangeColor" / "answer").glob("*.svg"))
    answer.unlink()
    line = one_line_error(run_args(demo_data, tmp_path / "r"))
    assert "has no answer" in line and answer.name in line


def test_a_case_read_only_when_used_is_still_checked_before_any_answer(
    demo_data: Path, tmp_path: Path
) -> None:
    # SVGEditBench cases are read when used (svgeval.tasks.lazy); a broken one must still stop
    # the run with one line before the model is asked anything
    query = max((demo_data / "6_CropToHalf" / "query").glob("*.txt"))
    query.write_text("no SVG here", encoding="utf-8")
    line = one_line_error(run_args(demo_data, tmp_path / "r"))
    assert "has no ```svg block" in line and query.name in line
    assert not (tmp_path / "r" / "responses.jsonl").exists()

"""The command line: listings, and one-line errors with a non-zero exit for user mistakes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from svgeval.cli import app

cli = CliRunner()


def test_list_tasks_models_metrics() -> None:
    assert "svgeditbench" in cli.invoke(app, ["list", "tasks"]).output
    assert "openai-compatible" in cli.invoke(app, ["list", "models"]).output
    assert "mse" in cli.invoke(app, ["list", "metrics"]).output
    bad = cli.invoke(app, ["list", "widgets"])
    assert bad.exit_code == 1 and "choose tasks, models or metrics" in bad.output


def test_list_tasks_groups_tasks_under_their_suite() -> None:
    lines = cli.invoke(app, ["list", "tasks"]).output.splitlines()
    headings = [n for n, line in enumerate(lines) if line and not line.startswith(" ")]
    suites = {lines[start]: [line.split()[0] for line in lines[start + 1:end]
                             if line.startswith("  ") and not line.startswith("   ")]
              for start, end in zip(headings, [*headings[1:], len(lines)])}
    assert suites["SVGEditBench  (source: mti-lab/SVGEditBench (GitHub); preset: svgeditbench)"] \
        == ["svgeditbench"]
    svgenius = suites["SVGenius  (source: ZJU-REAL/SVGenius; preset: svgenius)"]
    assert "svgenius-understanding" in svgenius and "svgenius-bugfix" in svgenius
    assert all(name.startswith("svgenius-") for name in svgenius)
    vectorgym = "VectorGym  (source: ServiceNow/VectorGym (HF) + released code; preset: vectorgym)"
    assert suites[vectorgym] == [
        "vectorgym-caption", "vectorgym-edit", "vectorgym-sketch", "vectorgym-text"]
    # the baselines, then the per-task option lines, stay under their task
    edit = lines.index(next(line for line in lines if line.startswith("  vectorgym-edit  ")))
    assert lines[edit + 1] == "      baselines: oracle, identity, empty, hostile"
    assert lines[edit + 2].startswith("      --set split=")
    caption = lines.index(next(line for line in lines if line.startswith("  vectorgym-text  ")))
    assert lines[caption + 1] == "      baselines: oracle, empty, hostile"


def one_line_error(args: list[str]) -> str:
    result = cli.invoke(app, args)
    assert result.exit_code == 1, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), result.output
    return lines[0]


def test_user_errors_are_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    assert "--data" in one_line_error(["run", "svgeditbench", "--data", str(missing)])
    assert "unknown task" in one_line_error(["run", "nosuchtask"])
    assert "unknown model" in one_line_error(["run", "svgeditbench", "--model", "gpt5"])
    assert "KEY=VALUE" in one_line_error(["run", "svgeditbench", "--set", "novalue"])
    assert "no difficulty tiers" in one_line_error(["run", "svgeditbench", "--tier", "hard"])
    assert "choose easy, medium, hard" in one_line_error(
        ["run", "svgenius-bugfix", "--tier", "expert", "--data", str(tmp_path)]
    )
    assert "no .svg files" in one_line_error(
        ["svgeditbench", "build", str(tmp_path), "--out", str(tmp_path / "o")]
    )


def test_demo_then_conflicting_rerun(tmp_path: Path) -> None:
    result = cli.invoke(app, ["demo", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    results = json.loads((tmp_path / "run-identity" / "results.json").read_text())
    assert results["n"] == 72 and results["complete"]
    # it ends with the next commands to try; the first two run as printed
    steps = result.output[result.output.index("next:"):].splitlines()[1:]
    assert [step.split()[1:3] for step in steps] == [
        ["report", str(tmp_path / "run-identity")], ["run", "svgeditbench"],
        ["run", "svgeditbench"]]
    for step in steps[:2]:
        assert cli.invoke(app, step.split()[1:]).exit_code == 0, step
    assert (tmp_path / "run-identity" / "report" / "index.html").exists()
    assert json.loads((tmp_path / "run-oracle" / "results.json").read_text())["complete"]
    run_dir = str(tmp_path / "run-identity")
    error = one_line_error(
        ["run", "svgeditbench", "--data", str(tmp_path / "data"), "--out", run_dir]
    )
    assert "--resume" in error
    error = one_line_error(
        ["run", "svgeditbench", "--data", str(tmp_path / "data"), "--out", run_dir, "--resume",
         "--model", "oracle"]
    )
    assert "different model" in error


def test_score_rescoring_uses_the_cache_only(tmp_path: Path) -> None:
    assert cli.invoke(app, ["demo", "--out", str(tmp_path)]).exit_code == 0
    run_dir = tmp_path / "run-identity"
    before = json.loads((run_dir / "results.json").read_text())
    responses = (run_dir / "responses.jsonl").read_text()
    result = cli.invoke(app, ["score", str(run_dir)])
    assert result.exit_code == 0, result.output
    after = json.loads((run_dir / "results.json").read_text())
    assert after["metrics"] == before["metrics"] and after["model"] == "identity"
    assert (run_dir / "responses.jsonl").read_text() == responses
    assert len((run_dir / "samples.jsonl").read_text().splitlines()) == 72


def test_replay_without_some_answers_leaves_those_samples_missing(tmp_path: Path) -> None:
    """Not model_error records counted among the invalid outputs, as main wrote them."""
    assert cli.invoke(app, ["demo", "--out", str(tmp_path)]).exit_code == 0
    lines = (tmp_path / "run-identity" / "responses.jsonl").read_text().splitlines()
    replay = tmp_path / "replay.jsonl"
    replay.write_text("\n".join(lines[:-2]) + "\n")
    out = tmp_path / "replayed"
    result = cli.invoke(
        app,
        ["run", "svgeditbench", "--data", str(tmp_path / "data"), "--out", str(out),
         "--model", f"replay:{replay}"],
    )
    assert result.exit_code == 1, result.output
    assert "2 samples had no response in the replay file" in result.output
    assert "2 of 72 samples have no record yet" in result.output
    results = json.loads((out / "results.json").read_text())
    missing = [json.loads(line)["id"] for line in lines[-2:]]
    assert set(results["model_report"]["missing_ids"]) == set(missing)
    assert (results["n"], results["n_valid"], results["n_missing"]) == (70, 70, 2)
    assert results["n_answered"] == 70 and results["complete"] is False
    records = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert not {r["id"] for r in records} & set(missing)


def test_model_path_travels_with_the_run_and_leaves_the_environment_as_it_was(
    demo_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--model-path`` is a setting of the run (recorded in its config, handed to its
    metrics), never written to ``SVGEVAL_<METRIC>_MODEL``: the user's variable is as it was."""
    monkeypatch.setenv("SVGEVAL_DINO_MODEL", "unset")  # restored after the test
    assert "METRIC=PATH" in one_line_error(["run", "svgeditbench", "--model-path", "dino"])
    before = dict(os.environ)
    out = tmp_path / "run"
    result = cli.invoke(app, ["run", "svgeditbench", "--data", str(demo_data), "--limit", "1",
                              "--out", str(out), "--model-path", f"dino={tmp_path}",
                              "--model-path", "lpips=none"])
    assert result.exit_code == 0, result.output
    assert dict(os.environ) == before
    settings = json.loads((out / "config.json").read_text(encoding="utf-8"))["settings"]
    assert settings["model_paths"] == {"dino": str(tmp_path), "lpips": "none"}


def test_model_path_reaches_the_scoring_tokenizer_and_the_batched_metrics(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tiny_clip_dir: Path, tiny_dino_dir: Path
) -> None:
    """No ``SVGEVAL_*_MODEL`` is set, and every weight comes from ``--model-path``: the
    tokenizer of each sample's token count (loaded while scoring), DINO (the batched stage),
    LPIPS turned off; a re-score (``svgeval score``) reads them from the run's config."""
    for metric in ("TOKENIZER", "DINO", "LPIPS"):
        monkeypatch.delenv(f"SVGEVAL_{metric}_MODEL", raising=False)
    monkeypatch.setenv("SVGEVAL_CACHE", str(tmp_path / "cache"))
    pytest.importorskip("cv2")  # its own loader adds to LD_LIBRARY_PATH once, when imported
    before = dict(os.environ)
    out = tmp_path / "run"
    result = cli.invoke(app, [
        "run", "sarena-chemistry-img2svg", "--data", "builtin", "--model", "oracle", "--limit",
        "1", "--out", str(out), "--render-workers", "1", "--model-path",
        f"tokenizer={tiny_clip_dir}", "--model-path", f"dino={tiny_dino_dir}",
        "--model-path", "lpips=none"])
    assert result.exit_code == 0, result.output
    assert dict(os.environ) == before

    def seen() -> list[tuple[bool, bool, str]]:
        lines = (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()
        return [(record["metrics"]["tokens"] > 0, record["metrics"]["dino"] is not None,
                 record["not_computed"]["lpips"]) for record in map(json.loads, lines)]

    assert seen() and all(tokens and dino and "turned off" in lpips
                          for tokens, dino, lpips in seen())
    assert cli.invoke(app, ["score", str(out)]).exit_code == 0
    assert seen() and all(tokens and dino for tokens, dino, _ in seen())
    assert dict(os.environ) == before

"""``replay:`` of VLMEvalKit prediction files: SArena's and UniSVG's, built from the built-in
samples' release layouts and written as VLMEvalKit's inference step writes them (the dataset's
columns less ``image``, plus ``prediction``; ``dump`` of ``vlmeval/smp/file.py`` at ``e8e78f05``:
xlsx through xlsxwriter, tsv and csv with every field quoted). Every row must find its sample, and
the numbers must equal a ``replay:`` JSONL run of the same answers."""

from __future__ import annotations

import csv
import functools
import json
import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from typer.testing import CliRunner

from svgeval.cli import app
from svgeval.models.prediction_files import read_prediction_file
from svgeval.tasks import get_task
from svgeval.tasks.base import CommonOptions
from svgeval.tasks.builtin import builtin_data, builtin_sample
from svgeval.tasks.sarena import image_tasks
from svgeval.tasks.sarena.vlmevalkit import line_id

cli = CliRunner()
NO_SVG = "I cannot draw that."

# VLMEvalKit's TASK_CONFIGS_FULL (vlmeval/dataset/utils/sarena.py) for the files of the built-in
# sample: level 1, level 2 and jsonl path
SARENA_FILES = [
    ("SArena-Icon", "Understanding", "Icon/understanding/sarena_un.jsonl"),
    ("SArena-Icon", "Generation-T2SVG", "Icon/generation/text2svg.jsonl"),
    ("SArena-Icon", "Generation-I2SVG", "Icon/generation/img2svg.jsonl"),
    ("SArena-Icon", "Edit-Color-Simple", "Icon/edit/color_simple.jsonl"),
    ("SArena-Icon", "Edit-Flip", "Icon/edit/flip.jsonl"),
    ("SArena-Icon", "Edit-Rotate", "Icon/edit/rotate.jsonl"),
    ("SArena-Illustration", "Generation-T2SVG", "illustration/text2svg.jsonl"),
    ("SArena-Illustration", "Generation-I2SVG", "illustration/img2svg.jsonl"),
    ("SArena-Chemistry", "Generation-T2SVG", "chemistry/text2svg.jsonl"),
    ("SArena-Chemistry", "Generation-I2SVG", "chemistry/img2svg.jsonl"),
]
SARENA_TASKS = ("sarena-icon-understanding", "sarena-icon-text2svg", "sarena-icon-img2svg",
                "sarena-icon-edit", "sarena-illustration-text2svg",
                "sarena-illustration-img2svg", "sarena-chemistry-text2svg",
                "sarena-chemistry-img2svg")


def dump(frame: pd.DataFrame, path: Path) -> Path:
    """``frame`` written as VLMEvalKit's ``dump`` writes a prediction file."""
    if path.suffix == ".xlsx":
        with pd.ExcelWriter(path, engine="xlsxwriter",
                            engine_kwargs={"options": {"strings_to_formulas": False}}) as writer:
            frame.to_excel(writer, index=False)
    else:
        frame.to_csv(path, sep="\t" if path.suffix == ".tsv" else ",", index=False,
                     encoding="utf-8", quoting=csv.QUOTE_ALL)
    return path


def answer(number: int, truth: str, choice: bool) -> str:
    """Every other row the reference, the rest a wrong answer: numbers between the extremes."""
    if number % 2 == 0:
        return truth
    return "D. none of them" if choice else NO_SVG


def sarena_predictions() -> pd.DataFrame:
    """SArena's questions as rows of VLMEvalKit's TSV (``category`` the level-1 name,
    ``l2-category`` the level-2 name and the line id), each with a ``prediction``."""
    root = builtin_data(builtin_sample("sarena-icon-edit"))  # type: ignore[arg-type]
    rows: list[dict[str, Any]] = []
    for level1, level2, relative in SARENA_FILES:
        for text in (root / relative).read_text(encoding="utf-8").splitlines():
            line = json.loads(text)
            prompt, truth = (turn["value"] for turn in line["conversations"][:2])
            rows.append({"index": len(rows), "question": prompt, "answer": truth,
                         "category": level1, "l2-category": f"{level2}_{line['id']}",
                         "prediction": answer(len(rows), truth, level2 == "Understanding")})
    return pd.DataFrame(rows)


def sarena_jsonl(frame: pd.DataFrame, level1: str, level2: str, path: Path) -> Path:
    """The answers of one task file as a JSONL replay file, keyed by svgeval's sample ids."""
    lines = []
    for row in frame.to_dict("records"):
        name, line = str(row["l2-category"]).rsplit("_", 1)
        if (row["category"], name) == (level1, level2):
            lines.append(json.dumps({"id": line, "response": row["prediction"]}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run(task: str, model: str, out: Path) -> tuple[dict[str, Any], str]:
    # a render limit far above the default 10 s: on a loaded machine a render that times out in
    # one run and not in the other would be a difference of load, not of the answers
    outcome = cli.invoke(app, ["run", task, "--data", "builtin", "--model", model, "--out",
                               str(out), "--render-workers", "1", "--render-timeout", "120"])
    assert outcome.exit_code == 0, outcome.output
    results: dict[str, Any] = json.loads((out / "results.json").read_text())
    return results, outcome.output


def use_small_lpips(patch: pytest.MonkeyPatch) -> None:
    """LPIPS with the real VGG weights on 64 px copies (at 448 px it takes seconds a pair)."""
    patch.setattr(image_tasks, "lpips", functools.partial(image_tasks.lpips, size=64))


@pytest.fixture()
def small_lpips(monkeypatch: pytest.MonkeyPatch) -> None:
    """:func:`use_small_lpips` for one test."""
    use_small_lpips(monkeypatch)


def differing(ours: dict[str, Any], theirs: dict[str, Any]) -> dict[str, Any]:
    """The metrics the two runs disagree on (empty when they agree key for key): equal, or
    within 1e-6 relative where a model computes them (CLIP on the CPU moved in the 8th digit
    between two runs of the same answers, under load)."""
    def same(a: Any, b: Any) -> bool:
        if isinstance(a, float) and isinstance(b, float):
            return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)
        return bool(a == b)

    keys = ours["metrics"].keys() | theirs["metrics"].keys()
    return {key: (ours["metrics"].get(key), theirs["metrics"].get(key)) for key in sorted(keys)
            if not same(ours["metrics"].get(key), theirs["metrics"].get(key))}


def test_every_row_of_a_sarena_file_answers_one_sample_of_one_task() -> None:
    frame = sarena_predictions()
    rows = [{key: str(value) for key, value in row.items()} for row in frame.to_dict("records")]
    owners: dict[int, list[str]] = {number: [] for number in range(len(rows))}
    for name in SARENA_TASKS:
        task = get_task(name)(CommonOptions(data="builtin"))
        ids = {sample.id for sample in task.load()}
        for number, row in enumerate(rows):
            found = task.vlmevalkit_sample_id(row)
            if found is not None:
                assert found in ids, (name, row["l2-category"])
                owners[number].append(name)
    assert all(len(names) == 1 for names in owners.values()), owners
    assert len(rows) == 36


SARENA_REPLAYED = (("sarena-icon-understanding", "Understanding", 6),
                   ("sarena-icon-img2svg", "Generation-I2SVG", 4))
"""The tasks the SArena file is rescored on: name, level 2 and the rows of the sample."""


@pytest.fixture(scope="module")
def sarena_jsonl_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """The ``results.json`` of each task's JSONL replay run, made once for every file format."""
    folder, frame = tmp_path_factory.mktemp("sarena-jsonl"), sarena_predictions()
    results = {}
    with pytest.MonkeyPatch.context() as patch:
        use_small_lpips(patch)
        for task, level2, _ in SARENA_REPLAYED:
            jsonl = sarena_jsonl(frame, "SArena-Icon", level2, folder / f"{task}.jsonl")
            results[task] = run(task, f"replay:{jsonl}", folder / task)[0]
    return results


@pytest.mark.parametrize("suffix", [".xlsx", ".tsv", ".csv"])
def test_sarena_file_rescored_as_its_jsonl_replay(
        suffix: str, tmp_path: Path, small_lpips: None,
        sarena_jsonl_results: dict[str, dict[str, Any]]) -> None:
    file = dump(sarena_predictions(), tmp_path / f"InternVL3-8B_SArena{suffix}")
    for task, _, rows in SARENA_REPLAYED:
        ours, output = run(task, f"replay:{file}", tmp_path / f"{task}-file")
        assert differing(ours, sarena_jsonl_results[task]) == {}
        assert ours["n"] == rows and ours["model_report"]["missing_ids"] == []
        # the other tasks' rows are counted, once, in one line
        report = ours["model_report"]
        assert report["rows"] == 36 and report["unmatched_rows"] == 36 - rows
        assert f"{36 - rows} of 36 rows of the VLMEvalKit file answer no sample" in output
    assert 0 < ours["metrics"]["icon/ssim"] < 1


def unisvg_predictions() -> pd.DataFrame:
    """UniSVG.tsv as VLMEvalKit loads it, less ``image``, with a ``prediction`` per row."""
    tsv = builtin_data(builtin_sample("unisvg")) / "UniSVG.tsv"  # type: ignore[arg-type]
    frame = pd.read_csv(tsv, sep="\t")
    frame.pop("image")
    generation = frame["category"].isin(["ISVGEN", "TSVGEN"])
    frame["prediction"] = [answer(number, str(truth), not drawn) for number, (truth, drawn)
                           in enumerate(zip(frame["answer"], generation))]
    return frame


def tiny_unisvg_models(patch: pytest.MonkeyPatch, clip: Path, text_encoder: Path) -> None:
    """UniSVG's CLIP and BERTScore models: the tiny stand-ins."""
    patch.setenv("SVGEVAL_CLIP_MODEL", str(clip))
    patch.setenv("SVGEVAL_BERTSCORE_MODEL", str(text_encoder))


@pytest.fixture(scope="module")
def unisvg_jsonl_results(tmp_path_factory: pytest.TempPathFactory, tiny_clip_dir: Path,
                         tiny_text_encoder_dir: Path) -> dict[str, Any]:
    """The ``results.json`` of the JSONL replay run, made once for every file format."""
    folder, frame = tmp_path_factory.mktemp("unisvg-jsonl"), unisvg_predictions()
    jsonl = folder / "answers.jsonl"
    jsonl.write_text("".join(json.dumps({"id": str(index), "response": prediction}) + "\n"
                             for index, prediction in zip(frame["index"], frame["prediction"])))
    with pytest.MonkeyPatch.context() as patch:
        tiny_unisvg_models(patch, tiny_clip_dir, tiny_text_encoder_dir)
        return run("unisvg", f"replay:{jsonl}", folder / "jsonl")[0]


@pytest.mark.parametrize("suffix", [".xlsx", ".tsv"])
def test_unisvg_file_rescored_as_its_jsonl_replay(
        suffix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tiny_clip_dir: Path,
        tiny_text_encoder_dir: Path, unisvg_jsonl_results: dict[str, Any]) -> None:
    tiny_unisvg_models(monkeypatch, tiny_clip_dir, tiny_text_encoder_dir)
    frame = unisvg_predictions()
    file = dump(frame, tmp_path / f"Qwen2.5-VL-7B_UniSVG{suffix}")
    ours, output = run("unisvg", f"replay:{file}", tmp_path / "file")
    assert differing(ours, unisvg_jsonl_results) == {}
    assert ours["n"] == len(frame) == ours["model_report"]["rows"]
    assert ours["model_report"]["unmatched_rows"] == 0 and "answer no sample" not in output
    assert 0 < ours["metrics"]["overall/final_score"] < 1


def test_the_line_id_rules_of_vlmevalkits_evaluation() -> None:
    # l2-category's digits after the last "_", else the id column, else the index column
    assert line_id({"l2-category": "Edit-Flip_0012", "category": "SArena-Icon"},
                   "SArena-Icon", "Edit-Flip") == "12"
    assert line_id({"l2-category": "Edit-Flip", "category": "SArena-Icon", "id": "7",
                    "index": "3"}, "SArena-Icon", "Edit-Flip") == "7"
    assert line_id({"l2-category": "sarena-icon|edit-flip", "index": "3"},
                   "SArena-Icon", "Edit-Flip") == "3"  # any case, level 1 in l2-category
    # no l2-category column: category stands for it; a level 1 found in no column: not the file's
    assert line_id({"category": "SArena-Icon Edit-Flip_4"}, "SArena-Icon", "Edit-Flip") == "4"
    assert line_id({"l2-category": "Edit-Flip_4", "category": "SArena-Chemistry"},
                   "SArena-Icon", "Edit-Flip") is None
    assert line_id({"l2-category": "Edit-Flip_x", "category": "SArena-Icon"},
                   "SArena-Icon", "Edit-Flip") is None


def test_cells_read_as_the_tsv_wrote_them(tmp_path: Path) -> None:
    frame = pd.DataFrame({"index": [3, 10], "question": ["q", "r"],
                          "prediction": ["<svg/>", float("nan")]})
    for suffix in (".xlsx", ".tsv", ".csv"):
        rows = read_prediction_file(dump(frame, tmp_path / f"p{suffix}"))
        assert rows == [{"index": "3", "question": "q", "prediction": "<svg/>"},
                        {"index": "10", "question": "r", "prediction": ""}], suffix


def test_files_it_cannot_use_stop_the_run_in_one_line(tmp_path: Path) -> None:
    no_answers = dump(pd.DataFrame({"index": [1], "question": ["q"]}), tmp_path / "a.tsv")
    outcome = cli.invoke(app, ["run", "unisvg", "--data", "builtin", "--model",
                               f"replay:{no_answers}", "--out", str(tmp_path / "a")])
    assert outcome.exit_code != 0 and "has no 'prediction' column" in outcome.output
    file = dump(unisvg_predictions(), tmp_path / "b.tsv")
    outcome = cli.invoke(app, ["run", "svgeditbench", "--data", "builtin", "--model",
                               f"replay:{file}", "--out", str(tmp_path / "b")])
    assert outcome.exit_code != 0 and "not a task VLMEvalKit runs" in outcome.output
    outcome = cli.invoke(app, ["run", "sarena-icon-understanding", "--data", "builtin",
                               "--model", f"replay:{file}", "--out", str(tmp_path / "c")])
    assert outcome.exit_code != 0 and "no row of" in outcome.output

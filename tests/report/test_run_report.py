"""``svgeval report``: the page's files, what the gallery data says about each sample, hostile
SVG kept out of the markup, renders drawn once, and a report without the data."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from report_runs import SmallRun, gallery_data, invoke, make_data, one_line_error, records

from svgeval.report.gallery import CHUNK
from svgeval.report.renders import RenderStore


@pytest.fixture(scope="module")
def report(small_run: SmallRun) -> Path:
    code, output = invoke(["report", str(small_run.root), "--render-workers", "2"])
    assert code == 0, output
    return small_run.root / "report"


def test_the_run_has_the_outcomes_it_was_built_with(small_run: SmallRun) -> None:
    found = {r["id"]: r["failure"]["kind"] if r["failure"] else "valid"
             for r in records(small_run.root)}
    assert found == small_run.expected


def test_every_sample_has_a_card_with_its_outcome_metrics_and_renders(
    small_run: SmallRun, report: Path
) -> None:
    samples = gallery_data(report)["samples"]
    assert {s["id"]: s["kind"] or "valid" for s in samples} == small_run.expected
    by_id = {r["id"]: r for r in records(small_run.root)}
    for sample in samples:
        assert sample["m"] == by_id[sample["id"]]["metrics"]
        images = sample["img"]
        assert set(images) == {"input", "output", "reference"}
        for slot in ("input", "reference"):
            png = report / images[slot]["src"]
            assert Image.open(png).size == (160, 160)
        outcome = small_run.expected[sample["id"]]
        if outcome == "valid":
            # the valid answers return the input unchanged: one render serves both
            assert images["output"] == images["input"]
        elif outcome == "extract":
            assert images["output"] == {"missing": "no SVG in the answer"}
        else:
            assert images["output"]["error"].startswith("rejected:")


def test_hostile_svg_is_only_a_failure_never_markup(small_run: SmallRun, report: Path) -> None:
    samples = {s["id"]: s for s in gallery_data(report)["samples"]}
    reasons = {samples[i]["tag"] for i in small_run.hostile}
    assert reasons == {"render:rejected:script", "render:rejected:external_reference"}
    for path in report.rglob("*"):
        if path.suffix in (".html", ".js", ".css"):
            text = path.read_text(encoding="utf-8")
            assert "<svg" not in text.lower() and "<script>window" not in text, path
    assert "pwned" not in (report / "index.html").read_text(encoding="utf-8")
    assert small_run.server.requests == []


def test_texts_are_in_chunks_loaded_on_demand(small_run: SmallRun, report: Path) -> None:
    samples = gallery_data(report)["samples"]
    assert {s["chunk"] for s in samples} == {i // CHUNK for i in range(len(samples))}
    text = (report / "data" / "details-0000.js").read_text(encoding="utf-8")
    details = json.loads(text[text.index("{"): text.rindex("}") + 1])
    by_id = {r["id"]: r for r in records(small_run.root)}
    assert {key: value["response"] for key, value in details.items()} == {
        key: record["response"] for key, record in by_id.items()
    }


def test_summary_shows_metrics_intervals_and_failures(small_run: SmallRun, report: Path) -> None:
    page = (report / "index.html").read_text(encoding="utf-8")
    results = json.loads((small_run.root / "results.json").read_text(encoding="utf-8"))
    for key, stats in results["stats"].items():
        if stats["ci95"] is not None:
            low = f"{stats['ci95'][0]:.4f}"
            assert f"[{low}," in page, key
    for count in results["counts"].values():
        for tag in count["failures"]:
            assert f"<th>{tag}</th>" in page
    assert (report / "plots" / "mse.png").exists() and (report / "plots" / "mse.svg").exists()


def test_a_second_build_draws_nothing(small_run: SmallRun, report: Path) -> None:
    before = {path.name: path.stat().st_mtime_ns for path in (report / "renders").iterdir()}
    code, output = invoke(["report", str(small_run.root)])
    assert code == 0 and "0 renders drawn" in output, output
    after = {path.name: path.stat().st_mtime_ns for path in (report / "renders").iterdir()}
    assert after == before


def test_without_the_data_the_report_shows_model_renders_and_says_why(
    small_run: SmallRun, tmp_path: Path
) -> None:
    run = tmp_path / "moved"
    shutil.copytree(small_run.root, run, ignore=shutil.ignore_patterns("report"))
    code, output = invoke(["report", str(run), "--data", str(tmp_path / "nowhere")])
    assert code == 0, output
    assert "inputs and references not shown" in output
    page = (run / "report" / "index.html").read_text(encoding="utf-8")
    assert "inputs and references not shown" in page
    for sample in gallery_data(run / "report")["samples"]:
        assert set(sample["img"]) == {"output"}


def test_other_data_is_never_used_for_references(
    small_run: SmallRun, tmp_path: Path
) -> None:
    other = make_data(tmp_path / "other", seed=9)
    code, output = invoke(["report", str(small_run.root), "--data", str(other),
                           "--out", str(tmp_path / "page")])
    assert code == 0 and "is not the data of this run" in output, output


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p, "has no config.json"),
        (lambda p: p / "absent", "is not a directory"),
    ],
)
def test_not_a_run_is_one_line(tmp_path: Path, make: Any, message: str) -> None:
    assert message in one_line_error(["report", str(make(tmp_path))])


def test_an_interrupted_run_without_results_is_one_line(
    small_run: SmallRun, tmp_path: Path
) -> None:
    run = tmp_path / "cut"
    shutil.copytree(small_run.root, run, ignore=shutil.ignore_patterns("report", "results.json"))
    assert "svgeval score" in one_line_error(["report", str(run)])


def test_renders_that_failed_in_the_run_are_not_drawn_again(
    small_run: SmallRun, tmp_path: Path
) -> None:
    failed = [r for r in records(small_run.root) if (r["failure"] or {}).get("kind") == "render"]
    assert {r["id"] for r in failed} == small_run.hostile
    code, output = invoke(["report", str(small_run.root), "--out", str(tmp_path / "page"),
                           "--render-workers", "2"])
    assert code == 0, output
    store = RenderStore(tmp_path / "page" / "renders")
    drawn = {path.stem for path in (tmp_path / "page" / "renders").iterdir()}
    assert not drawn & {store.key(r["extracted"]) for r in failed}  # neither drawn nor tried
    assert "2 failed in the run and not drawn again" in output
    cards = {s["id"]: s for s in gallery_data(tmp_path / "page")["samples"]}
    for record in failed:
        reason, detail = record["failure"]["reason"], record["failure"]["detail"]
        assert cards[record["id"]]["img"]["output"] == {
            "error": f"{reason}: {detail} (in the run; not drawn again)"}

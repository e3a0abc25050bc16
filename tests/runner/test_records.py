"""Run records: typed failures, truncation, broken references, statistics, usage, progress."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import stats

from svgeval.models.base import Generation, GenerationRequest, Model
from svgeval.runner import RunDir, Runner, RunSettings
from svgeval.runner.progress import PeriodicReporter, RunMonitor
from svgeval.runner.records import ResponseRecord, SampleRecord, Usage
from svgeval.runner.run_dir import CorruptRecord, read_records
from svgeval.tasks.aggregate import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    MetricStats,
    mean_stats,
    mean_stats_many,
)
from svgeval.tasks.base import CommonOptions
from svgeval.tasks.svgeditbench import SvgEditBench


class CutOffModel(Model):
    """Answers half an SVG fence and says the server's token limit cut it off."""

    spec = "cut-off"

    async def generate(self, request: GenerationRequest) -> Generation:
        return Generation(
            "```svg\n<svg", finish_reason="length", usage={"completion_tokens": 7},
            attempts=2, total_s=1.5, latency_s=0.5,
        )


def run(task_data: Path, model: Model, out: Path, **settings: Any) -> dict[str, Any]:
    task = SvgEditBench(CommonOptions(data=task_data))
    runner = Runner(task, model, RunDir(out), RunSettings(render_workers=1, **settings))
    results = asyncio.run(runner.run(runner.prepare(resume=False)))
    return results.model_dump(mode="json")


def records(out: Path) -> list[SampleRecord]:
    return read_records(out / "samples.jsonl", SampleRecord)


def test_an_answer_cut_off_by_max_tokens_is_a_truncated_failure(
    demo_data: Path, tmp_path: Path
) -> None:
    results = run(demo_data, CutOffModel(), tmp_path / "r", limit=1, max_tokens=5)
    assert results["counts"]["change_color"]["failures"] == {"truncated": 1}
    record = records(tmp_path / "r")[0]
    assert record.failure is not None and "raise --max-tokens" in str(record.failure.detail)
    assert "--max-tokens 5" in str(record.failure.detail)
    assert record.extraction_rule == "svgeditbench"  # the rule that was tried
    assert (record.timing.attempts, record.timing.total_s, record.timing.last_attempt_s) == (
        2, 1.5, 0.5)
    assert results["usage"]["completion_tokens"] == 6 * 7 and results["usage"]["attempts"] == 12
    assert results["usage"]["n_reported"] == 6  # the server reported the completion tokens only
    assert record.usage == Usage(prompt_tokens=0, completion_tokens=7)


def test_answers_without_token_counts_are_told_from_zero_counts(
    demo_data: Path, tmp_path: Path
) -> None:
    results = run(demo_data, _identity(), tmp_path / "r", limit=1)  # it reports no usage
    assert all(record.usage is None for record in records(tmp_path / "r"))
    responses = read_records(tmp_path / "r" / "responses.jsonl", ResponseRecord)
    assert len(responses) == 6 and all(response.usage is None for response in responses)
    assert results["usage"]["n_reported"] == 0
    assert (results["usage"]["prompt_tokens"], results["usage"]["completion_tokens"]) == (0, 0)


def test_a_broken_reference_is_the_datasets_failure_not_the_models(
    demo_data: Path, tmp_path: Path
) -> None:
    answer = next((demo_data / "5_Transparency" / "answer").glob("*.svg"))
    answer.write_text("<svg><rect></svg>")
    results = run(demo_data, _oracle(), tmp_path / "r")
    count = results["counts"]["transparency"]
    assert count["n_reference"] == 1 and count["n_invalid"] == 0
    assert count["failures"] == {"reference:rejected:malformed_xml": 1}
    broken = [r for r in records(tmp_path / "r") if r.id == f"transparency/{answer.stem}"]
    assert broken[0].failure is not None and broken[0].failure.kind.value == "reference"
    assert results["metrics"]["transparency/mse"] == 0.0  # the other samples are unaffected


def _oracle() -> Model:
    from svgeval.models import load_model

    return load_model("oracle")


def test_results_carry_counts_stats_and_the_schema(demo_data: Path, tmp_path: Path) -> None:
    results = run(demo_data, _identity(), tmp_path / "r")
    assert results["schema_version"] == 1 and results["n_expected"] == 72
    values = [r.metrics["mse"] for r in records(tmp_path / "r") if r.group == "upside_down"]
    summary = results["stats"]["upside_down/mse"]
    assert summary["n"] == len(values) == 12
    assert summary["stderr"] == pytest.approx(stats.sem(values), rel=1e-12)
    low, high = summary["ci95"]
    assert low <= float(np.mean(values)) <= high
    config = json.loads((tmp_path / "r" / "config.json").read_text())
    assert config["schema_version"] == 1 and config["created_at"]
    assert "data_as_given" not in config  # retired: written, never read
    # a run written before it was retired still loads, and resumes
    (tmp_path / "r" / "config.json").write_text(json.dumps({**config, "data_as_given": "x"}))
    loaded = RunDir(tmp_path / "r").read_config()
    assert loaded is not None and loaded.dataset_hash == config["dataset_hash"]
    task = SvgEditBench(CommonOptions(data=demo_data))
    runner = Runner(task, _identity(), RunDir(tmp_path / "r"), RunSettings(render_workers=1))
    assert asyncio.run(runner.run(runner.prepare(resume=True))).complete


def _identity() -> Model:
    from svgeval.models import load_model

    return load_model("identity")


def test_mean_stats_match_scipy_and_are_reproducible() -> None:
    values = list(np.random.default_rng(3).normal(5.0, 2.0, size=400))
    first, second = mean_stats(values), mean_stats(values)
    assert first == second
    assert first.stderr == pytest.approx(stats.sem(values), rel=1e-12)
    assert first.ci95 is not None
    low, high = first.ci95
    # the percentile interval of the mean is close to the normal one, mean +- 1.96 s/sqrt(n)
    assert (high - low) == pytest.approx(2 * 1.96 * first.stderr, rel=0.15)
    assert mean_stats([1.0]).stderr is None and mean_stats([1.0]).ci95 is None


def test_the_bootstrap_in_blocks_draws_what_one_draw_of_all_resamples_would() -> None:
    values = np.random.default_rng(5).uniform(size=1_001)  # several blocks, odd n
    everything = np.random.default_rng(BOOTSTRAP_SEED).integers(
        0, values.size, size=(BOOTSTRAP_RESAMPLES, values.size))
    expected = np.percentile(values[everything].mean(axis=1), [2.5, 97.5])
    assert mean_stats(list(values)).ci95 == (float(expected[0]), float(expected[1]))


def test_series_sharing_a_length_get_the_numbers_each_would_get_alone() -> None:
    rng = np.random.default_rng(7)
    series = {f"m{i}": list(rng.uniform(size=n)) for i, n in enumerate((100, 100, 37, 100, 1))}
    together = mean_stats_many(series)
    assert list(together) == list(series)
    for key, values in series.items():
        n = len(values)
        if n < 2:
            assert together[key] == MetricStats(n=n, stderr=None, ci95=None)
            continue
        data = np.asarray(values)
        draws = np.random.default_rng(BOOTSTRAP_SEED).integers(0, n, size=(BOOTSTRAP_RESAMPLES, n))
        low, high = np.percentile(data[draws].mean(axis=1), [2.5, 97.5])
        assert together[key] == MetricStats(n=n, stderr=float(data.std(ddof=1) / np.sqrt(n)),
                                            ci95=(float(low), float(high)))


def test_a_truncated_last_line_is_dropped_but_a_corrupt_middle_line_is_named(
    tmp_path: Path,
) -> None:
    good = SampleRecord(id="a", group="g", prompt=[], prompt_hash="h").model_dump_json()
    path = tmp_path / "samples.jsonl"
    path.write_text(good + "\n" + good[:20])
    assert [r.id for r in read_records(path, SampleRecord)] == ["a"]
    path.write_text(good + "\n" + '{"id": "b"}\n' + good + "\n")
    with pytest.raises(CorruptRecord, match=r"samples.jsonl line 2: field 'group'"):
        read_records(path, SampleRecord)
    path.write_text(good.replace('"schema_version":1', '"schema_version":9') + "\n")
    with pytest.raises(CorruptRecord, match="line 1: field 'schema_version'"):
        read_records(path, SampleRecord)


def fake_clock(times: list[float]) -> Any:
    return lambda: times[0]


def test_monitor_line_reports_progress_eta_tokens_retries_and_failures() -> None:
    now = [100.0]
    monitor = RunMonitor(total=10, already_done=2, clock=fake_clock(now))
    now[0] = 160.0
    failed: Mapping[str, Any] = {"kind": "extract"}
    for index in range(4):
        record = SampleRecord(
            id=str(index), group="g", prompt=[], prompt_hash="h",
            usage={"completion_tokens": 30},  # type: ignore[arg-type]
            failure=failed if index == 0 else None,  # type: ignore[arg-type]
        )
        monitor.record(record)
    monitor.retry()
    # 4 finished in 60 s, 4 left: 60 s more; 120 tokens in 60 s
    assert monitor.line() == (
        "6/10 samples · 1m00s · ETA 1m00s · 2.0 tok/s · 1 retries · failed: extract 1"
    )


def test_during_a_phase_after_the_samples_the_line_is_that_phases() -> None:
    now = [0.0]
    monitor = RunMonitor(total=4, already_done=4, clock=fake_clock(now))
    monitor.start("model metrics (lpips)", 300, "samples")
    now[0] = 40.0
    monitor.advance(32)
    monitor.advance(32)
    # 64 in 40 s, 236 left: 147.5 s more
    assert monitor.line() == "model metrics (lpips): 64/300 samples · 40s · ETA 2m28s"
    monitor.start("set metrics (fid)", 1, "epochs")
    now[0] = 100.0
    assert monitor.line() == "set metrics (fid): 0/1 epochs · 1m00s"


def test_periodic_reporter_writes_a_last_line_on_exit() -> None:
    written: list[str] = []
    monitor = RunMonitor(total=3, already_done=3)
    with PeriodicReporter(monitor, written.append, interval_s=3600):
        pass
    assert len(written) == 1 and written[0].startswith("3/3 samples")


def test_dataset_hash_streams_the_same_digest_as_the_whole_list() -> None:
    import hashlib

    from svgeval.runner.identity import dataset_hash
    from svgeval.tasks.base import Sample

    samples = [Sample(id=f"g/{i}", group="g", messages=[{"role": "user", "content": f"é {i}"}],
                      reference="<svg/>", target={"n": i, "path": Path("x")}) for i in range(3)]
    whole = json.dumps([(s.id, s.group, s.messages, s.reference, dict(s.target)) for s in samples],
                       sort_keys=True, ensure_ascii=False, default=str)
    assert dataset_hash(samples) == hashlib.sha256(whole.encode("utf-8")).hexdigest()
    assert dataset_hash([]) == hashlib.sha256(b"[]").hexdigest()


@pytest.mark.parametrize("n", [2, 7, 1001, 6001])
def test_bootstrap_in_blocks_draws_the_same_resamples_as_all_at_once(n: int) -> None:
    from svgeval.tasks.aggregate import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED

    values = np.random.default_rng(1).random(n)
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    means = values[rng.integers(0, n, size=(BOOTSTRAP_RESAMPLES, n))].mean(axis=1)
    expected = tuple(float(v) for v in np.percentile(means, [2.5, 97.5]))
    assert mean_stats(values.tolist()).ci95 == expected

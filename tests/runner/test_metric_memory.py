"""The model metrics' batches fit the machine: sized from the memory free, halved when a batch
runs out of it, one line when one sample does not fit, and a stage killed part-way (the OOM
killer's SIGKILL) leaves a run that ``--resume`` completes (issue 43)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.vectorgym_data import BLUE, RED
from support.worker_processes import wait_for

from svgeval.builders.starvector.builtin import write_rows
from svgeval.runner.metric_memory import (
    BYTES_PER_SAMPLE,
    MetricsOutOfMemory,
    auto_batch_size,
    batch_size,
    ran_out_of_memory,
)
from svgeval.runner.metric_stage import MetricBackend, fill_batched_metrics
from svgeval.runner.records import SampleRecord
from svgeval.runner.run_dir import latest_by_key, read_records
from svgeval.tasks.base import BatchItem, Sample, Target
from svgeval.tasks.outcome import MetricValues

pytestmark = pytest.mark.e2e  # see the marker in pyproject.toml

GIB = 1024**3


@pytest.mark.parametrize(("device", "free", "expected"), [
    ("cpu", None, 8),                         # nothing known: the cap
    ("cpu", 64 * GIB, 8),                     # a CPU's cap
    ("cuda", 64 * GIB, 32),                   # a GPU's cap
    ("cpu", 4 * 3 * BYTES_PER_SAMPLE, 3),     # a quarter of the free memory holds 3
    ("cuda:1", 4 * 5 * BYTES_PER_SAMPLE + 1, 5),
    ("cpu", 10, 1),                           # never 0
])
def test_the_automatic_batch_fits_a_quarter_of_the_free_memory(
        device: str, free: int | None, expected: int) -> None:
    assert auto_batch_size(device, free=free) == expected


@pytest.mark.parametrize(("error", "expected"), [
    (MemoryError(), True),
    (RuntimeError("[enforce fail at alloc_cpu.cpp:117] DefaultCPUAllocator: can't allocate "
                  "memory: you tried to allocate 8589934592 bytes"), True),
    (RuntimeError("mat1 and mat2 shapes cannot be multiplied"), False),
    (ValueError("can't allocate memory"), False),
])
def test_what_counts_as_running_out_of_memory(error: BaseException, expected: bool) -> None:
    assert ran_out_of_memory(error) is expected


def test_torch_out_of_memory_counts() -> None:
    torch = pytest.importorskip("torch")
    assert ran_out_of_memory(torch.OutOfMemoryError("CUDA out of memory"))


def test_a_batch_size_given_is_kept() -> None:
    assert batch_size(64, "cpu") == 64
    assert 1 <= batch_size(None, "cpu") <= 8


class Toy:
    """A task with one batched metric, ``size``: the batch it was computed in."""

    name = "toy"
    batched_metrics = ("size",)


def toy_records(n: int, file: Path) -> tuple[dict[str, Sample[Any]], dict[Any, SampleRecord]]:
    """``n`` samples and their records, as scoring wrote them to ``file``."""
    samples = {str(i): Sample(id=str(i), group="g", messages=[], target=Target(),
                             reference=None)
               for i in range(n)}
    scored = [SampleRecord(id=str(i), group="g", prompt=[], prompt_hash="h", extracted="<svg/>")
              for i in range(n)]
    records = {record.key: record for record in scored}
    file.write_text("".join(record.model_dump_json() + "\n" for record in records.values()))
    return samples, records


def backend_fitting(most: int, calls: list[int]) -> MetricBackend:
    """Computes batches of up to ``most`` items and runs out of memory on larger ones."""
    def batch_score(items: list[BatchItem[Any]]) -> list[MetricValues]:
        calls.append(len(items))
        if len(items) > most:
            raise MemoryError
        return [MetricValues(metrics={"size": float(len(items))}) for _ in items]

    return MetricBackend(8, batch_score, lambda groups: MetricValues())


def test_a_batch_out_of_memory_is_computed_again_in_halves(tmp_path: Path) -> None:
    samples, records = toy_records(10, tmp_path / "samples.jsonl")
    calls: list[int] = []
    fill_batched_metrics(Toy(), samples, records, backend_fitting(2, calls),  # type: ignore[arg-type]
                         tmp_path / "samples.jsonl")
    # 8 -> 4 -> 2 + 2, 4 -> 2 + 2; then the last 2
    assert calls == [8, 4, 2, 2, 4, 2, 2, 2]
    assert all(record.metrics["size"] == 2.0 for record in records.values())
    stored = list(read_records(tmp_path / "samples.jsonl", SampleRecord))  # compacted
    assert sorted(record.id for record in stored) == sorted(samples)
    assert all(record.metrics["size"] == 2.0 for record in stored)


def test_one_sample_that_does_not_fit_stops_with_one_line_keeping_the_batches_before(
        tmp_path: Path) -> None:
    samples, records = toy_records(10, tmp_path / "samples.jsonl")
    calls: list[int] = []
    backend = backend_fitting(8, calls)
    failing = backend.batch_score

    def second_batch_never_fits(items: list[BatchItem[Any]]) -> list[MetricValues]:
        if items[0].sample.id == "8":
            raise MemoryError
        return failing(items)

    stage = MetricBackend(8, second_batch_never_fits, backend.set_score)
    with pytest.raises(MetricsOutOfMemory, match=r"on one sample \(8\): free memory or run "
                       r"them on a larger device \(--device\); the finished batches are kept, "
                       r"continue with --resume"):
        fill_batched_metrics(Toy(), samples, records, stage,  # type: ignore[arg-type]
                             tmp_path / "samples.jsonl")
    stored = latest_by_key(read_records(tmp_path / "samples.jsonl", SampleRecord))
    assert {key[0] for key, record in stored.items() if "size" in record.metrics} == {
        str(i) for i in range(8)}


def test_a_metric_stage_killed_part_way_is_completed_by_resume(
        tmp_path: Path, tiny_dino_dir: Path, tiny_clip_dir: Path) -> None:
    pytest.importorskip("torch")
    data = write_rows(tmp_path / "test-00000-of-00001.parquet", [
        {"Filename": f"{i}.svg", "Svg": svg} for i, svg in enumerate([RED, BLUE])])
    out = tmp_path / "run"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "SVGEVAL_DINO_MODEL": str(tiny_dino_dir),
           "SVGEVAL_CLIP_MODEL": str(tiny_clip_dir), "SVGEVAL_CLIP_FID_MODEL": str(tiny_clip_dir)}
    command = [sys.executable, "-m", "svgeval", "run", "starvector-img2svg", "--data", str(data),
               "--model", "oracle", "--out", str(out), "--render-workers", "1",
               "--metric-batch-size", "1"]
    run = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, start_new_session=True)
    samples = out / "samples.jsonl"
    # LPIPS' VGG at 512 px takes seconds a sample on a CPU: killed after the first batch
    assert wait_for(lambda: samples.exists() and '"lpips"' in samples.read_text(), 240, 0.05)
    os.killpg(run.pid, signal.SIGKILL)
    run.wait(timeout=30)
    assert not (out / "results.json").exists()
    lacking = sum(1 for record in latest_by_key(read_records(samples, SampleRecord)).values()
                  if "lpips" not in record.metrics)
    assert lacking >= 1
    resumed = subprocess.run([*command, "--resume"], check=False, env=env, capture_output=True,
                             text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    assert (f"{lacking} recorded samples lack their model metrics (the last run stopped in its "
            "metric stage: if it was killed for memory, pass a smaller --metric-batch-size)"
            in resumed.stdout + resumed.stderr)
    results = json.loads((out / "results.json").read_text())
    assert results["complete"] and results["n"] == 2
    records = list(read_records(samples, SampleRecord))
    assert len(records) == 2 and all("lpips" in record.metrics for record in records)

"""What the batched metric stage spends on ``samples.jsonl``, against the number of samples.

    python -m bench metric-stage [--set samples=1000,4000,16000] [--set batch=64]
        [--set rounds=3] [--set network_us=430]

For each size, a ``samples.jsonl`` of that many records the size of an SVGenius image-to-SVG
record (a prompt and an answer of about 3 KB each, 6.6 KB a line as an SVGEditBench run's), then
:func:`~svgeval.runner.metric_stage.fill_batched_metrics` with a backend that returns two
numbers a sample at once: the stage's time is then its records' (what it reads, copies and
writes), the metrics' own time left out. The floor, measured beside it: each updated record
dumped and written once, one fsync a batch (what any stage that keeps each finished batch must
write). A stage whose cost a sample grows with the run is quadratic.

With the network: the stand-in backend also waits ``network_us`` microseconds a sample without
holding the GIL, as a metric call waits for a GPU (430 us a sample is CLIP ViT-B/32's whole
call on an H200, 1,860 pairs/s LPIPS' 540). The floor is then that wait alone (the network's
time, the floor of a GPU-bound stage); the target is at least 80% (the figure is the stage's
throughput against the wait's).

Compaction: the end of the stage alone, ``RecordLines.compact`` after every record was
appended again in batches, its wall time (the best of ``rounds``) against its CPU time.

(With the real CLIP call on a GPU, the stage against the network's forward pass: the
``model-metrics`` case's ``stage`` setting.)
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.measure import Figures, Scale
from svgeval.runner.metric_stage import MetricBackend, fill_batched_metrics
from svgeval.runner.record_lines import RecordLines
from svgeval.runner.records import SampleRecord
from svgeval.tasks.base import BatchItem, CommonOptions, Sample
from svgeval.tasks.outcome import MetricValues
from svgeval.tasks.svgenius.generation_task import CaptionTarget
from svgeval.tasks.svgenius.img2svg import SvgeniusImg2Svg

PATH = "M12 4L20 20H4Z " * 200
"""An answer and a prompt of about 3 KB each."""


def records(n: int) -> dict[Any, SampleRecord]:
    svg = f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="{PATH}"/></svg>'
    return {(f"easy/{i:06d}", 1): SampleRecord(
        id=f"easy/{i:06d}", group="easy", prompt=[{"role": "user", "content": svg}],
        prompt_hash="0123456789abcdef", response=f"Answer: {svg}", extracted=svg,
        metrics={"mse": 0.01, "ssim": 0.9, "pss": 80.0}) for i in range(n)}


COMPUTED: dict[str, float | None] = {"lpips": 0.25, "dino": 0.75}
"""What the stand-in backend computes for every sample."""


def metrics(items: list[BatchItem[Any]], network_us: float = 0.0) -> list[MetricValues]:
    if network_us:
        time.sleep(network_us * 1e-6 * len(items))  # the GIL let go, as while a GPU computes
    return [MetricValues(metrics=COMPUTED) for _ in items]


Score = Callable[[list[BatchItem[Any]]], list[MetricValues]]


def stage_seconds(folder: Path, n: int, batch: int, score: Score = metrics) -> float:
    done = records(n)
    path = folder / "samples.jsonl"
    path.write_text("".join(r.model_dump_json() + "\n" for r in done.values()))
    samples = {key[0]: Sample(key[0], "easy", [], "", target=CaptionTarget(caption="c",
                                                                            answer=""))
               for key in done}
    slim = {key: r.model_copy(update={"prompt": [], "response": None}) for key, r in done.items()}
    backend = MetricBackend(batch, score, lambda groups: MetricValues())
    started = time.perf_counter()
    fill_batched_metrics(SvgeniusImg2Svg(CommonOptions()), samples, slim, backend, path)
    return time.perf_counter() - started


def floor_seconds(folder: Path, n: int, batch: int) -> float:
    done = list(records(n).values())
    path = folder / "floor.jsonl"
    started = time.perf_counter()
    with path.open("w", encoding="utf-8") as handle:
        for start in range(0, n, batch):
            for record in done[start : start + batch]:
                updated = record.model_copy(update={"metrics": {**record.metrics, **COMPUTED}})
                handle.write(updated.model_dump_json() + "\n")
            handle.flush()
            os.fsync(handle.fileno())
    return time.perf_counter() - started


def compaction_seconds(folder: Path, n: int, batch: int) -> tuple[float, float]:
    """(wall, CPU) seconds of compacting ``n`` records each appended once more, in batches."""
    done = list(records(n).values())
    path = folder / "compact.jsonl"
    path.write_text("".join(r.model_dump_json() + "\n" for r in done))
    lines = RecordLines(path)
    for start in range(0, n, batch):
        lines.append(r.model_copy(update={"metrics": {**r.metrics, **COMPUTED}})
                     for r in done[start : start + batch])
    wall, cpu = time.perf_counter(), time.process_time()
    lines.compact()
    return time.perf_counter() - wall, time.process_time() - cpu


def run(scale: Scale) -> Figures:
    sizes = [int(size) for size in scale.pick("samples", "1000,4000,16000", "40,80").split(",")]
    batch, rounds = scale.pick("batch", 64, 16), scale.pick("rounds", 3, 1)
    network_us = scale.pick("network_us", 430.0, 430.0)
    folder = scale.workdir
    figures = Figures()
    score = functools.partial(metrics, network_us=network_us)
    for round_ in range(1, rounds + 1):
        for n in sizes:
            stage = stage_seconds(folder, n, batch)
            figures.add(f"round {round_}, {n} samples: stage", stage / n * 1e6, "us/sample",
                        floor_seconds(folder, n, batch) / n * 1e6, "records written once")
            waited = stage_seconds(folder, n, batch, score)
            figures.add(f"round {round_}, {n} samples: stage, network {network_us:g} us a "
                        f"sample", n / waited, "samples/s", 1e6 / network_us,
                        "the network's wait alone", least=0.8)
    for n in sizes:
        wall, cpu = map(min, zip(*(compaction_seconds(folder, n, batch) for _ in range(rounds))))
        figures.add(f"{n} records compacted (best of {rounds}), wall", wall / n * 1e6,
                    "us/record", cpu / n * 1e6, "its CPU time")
    return figures

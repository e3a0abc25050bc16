"""What the batched metric stage spends on ``samples.jsonl``, against the number of samples.

Run by hand:  .venv/bin/python bench/bench_metric_stage.py [--samples 1000,4000,16000]
              [--batch 64] [--rounds 3]

For each size, a ``samples.jsonl`` of that many records the size of an SVGenius image-to-SVG
record (a prompt and an answer of about 3 KB each, 6.6 KB a line as an SVGEditBench run's), then
:func:`~svgeval.runner.metric_stage.fill_batched_metrics` with a backend that returns two
numbers a sample at once: the stage's time is then its records' (what it reads, copies and
writes), the metrics' own time left out. The floor, measured beside it: each updated record
dumped and written once, one fsync a batch (what any stage that keeps each finished batch must
write). Prints seconds and microseconds a sample for both; a stage whose cost a sample grows
with the run is quadratic.

Compare two versions by running the script with each on ``PYTHONPATH`` (it times the
``fill_batched_metrics`` it imports).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from common import machine_line

import svgeval
from svgeval.runner.metric_stage import MetricBackend, fill_batched_metrics
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


COMPUTED = {"lpips": 0.25, "dino": 0.75}
"""What the stand-in backend computes for every sample."""


def metrics(items: list[BatchItem[Any]]) -> list[MetricValues]:
    return [MetricValues(metrics=COMPUTED) for _ in items]


def stage_seconds(folder: Path, n: int, batch: int) -> float:
    done = records(n)
    path = folder / "samples.jsonl"
    path.write_text("".join(r.model_dump_json() + "\n" for r in done.values()))
    samples = {key[0]: Sample(key[0], "easy", [], "", target=CaptionTarget(caption="c",
                                                                            answer=""))
               for key in done}
    slim = {key: r.model_copy(update={"prompt": [], "response": None}) for key, r in done.items()}
    backend = MetricBackend(batch, metrics, lambda groups: MetricValues())
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", default="1000,4000,16000")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"{machine_line()}; svgeval at {Path(svgeval.__file__).parent}")
    with tempfile.TemporaryDirectory() as scratch:
        for round_ in range(1, args.rounds + 1):
            for n in (int(size) for size in args.samples.split(",")):
                stage = stage_seconds(Path(scratch), n, args.batch)
                floor = floor_seconds(Path(scratch), n, args.batch)
                print(f"round {round_}: {n:6d} samples, batch {args.batch}: stage {stage:7.2f} s "
                      f"({stage / n * 1e6:6.0f} us a sample), floor {floor:5.2f} s "
                      f"({floor / n * 1e6:4.0f} us a sample), {stage / floor:5.2f} x floor",
                      flush=True)


if __name__ == "__main__":
    main()

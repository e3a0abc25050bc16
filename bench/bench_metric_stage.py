"""What the batched metric stage spends on ``samples.jsonl``, against the number of samples.

Run by hand:  .venv/bin/python bench/bench_metric_stage.py [--samples 1000,4000,16000]
              [--batch 64] [--rounds 3] [--network-us US | --compaction]

For each size, a ``samples.jsonl`` of that many records the size of an SVGenius image-to-SVG
record (a prompt and an answer of about 3 KB each, 6.6 KB a line as an SVGEditBench run's), then
:func:`~svgeval.runner.metric_stage.fill_batched_metrics` with a backend that returns two
numbers a sample at once: the stage's time is then its records' (what it reads, copies and
writes), the metrics' own time left out. The floor, measured beside it: each updated record
dumped and written once, one fsync a batch (what any stage that keeps each finished batch must
write). Prints seconds and microseconds a sample for both; a stage whose cost a sample grows
with the run is quadratic.

``--network-us US``: the stand-in backend also waits US microseconds a sample without holding
the GIL, as a metric call waits for a GPU (430 us a sample is CLIP ViT-B/32's whole call on an
H200, 1,860 pairs/s LPIPS' 540). The figure to read is then the stage against that wait alone
(the network's time, the floor of a GPU-bound stage): the target is at least 80%.

``--compaction``: the end of the stage alone, ``RecordLines.compact`` after every record was
appended again in batches, its wall and CPU time (the best of ``--rounds``).

``--clip-renders FILE --device cuda``: the backend is the real metric call instead,
``clip_score`` with the CLIP ViT-B/32 architecture (random weights, as ``model_split.py``
builds it) on the 224 px renders of FILE (``model_split.py --save-renders``), one caption a
sample, ``--preprocess device``; beside the stage, the same call alone and the network's
forward pass alone on inputs already on the device (``model_split.py``'s), over the same
samples. On a GPU, the stage against that forward pass is the issue's "metric stage at least
80% of the forward pass alone at batch 64".

Compare two versions by running the script with each on ``PYTHONPATH`` (it times the
``fill_batched_metrics`` it imports).
"""

from __future__ import annotations

import argparse
import functools
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from common import machine_line

import svgeval
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


COMPUTED = {"lpips": 0.25, "dino": 0.75}
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


def clip_rounds(folder: Path, sizes: list[int], batch: int, rounds: int, renders: Path,
                device: str) -> None:
    """The stage with the real ``clip_score`` call, against the call alone and the forward
    pass alone (``--clip-renders``)."""
    import model_split as split  # a sibling script, as common is; it imports torch
    import numpy as np

    from svgeval.metrics import _models
    from svgeval.metrics.clip import clip_score

    _models.use_preprocessing("device")
    path = str(split.bench_metrics._save_models(folder)["clip-vit-b-32"])
    drawn = list(np.load(renders)["renders"])
    images = [drawn[i % len(drawn)] for i in range(max(*sizes, 4 * batch))]
    texts = split.captions(len(images))

    def score(items: list[BatchItem[Any]]) -> list[MetricValues]:
        picked = [int(item.sample.id.split("/")[1]) for item in items]
        values = clip_score([images[i] for i in picked], [texts[i] for i in picked],
                            model_path=path, device=device, batch_size=len(items))
        return [MetricValues(metrics={"clip_score": v}) for v in values]

    stage_seconds(folder, batch * 4, batch, score)  # warm-up: the network loaded, kernels chosen
    for round_ in range(1, rounds + 1):
        for n in sizes:
            stage = stage_seconds(folder, n, batch, score)
            whole, _, forward = split.clip_split(images[:n], texts[:n], list(
                _models.batches(images[:n], batch)), path, device, batch)
            call, alone = split.timed(whole, device, 1), split.timed(forward, device, 1)
            print(f"round {round_}: {n:6d} samples, batch {batch}, CLIP ViT-B/32 on {device}: "
                  f"stage {stage:6.3f} s ({n / stage:5.0f}/s), the call alone {call:6.3f} s "
                  f"({n / call:5.0f}/s), forward alone {alone:6.3f} s ({n / alone:5.0f}/s): "
                  f"stage {alone / stage:4.0%} of the forward pass, the call {alone / call:4.0%}",
                  flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", default="1000,4000,16000")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--network-us", type=float, default=0.0)
    parser.add_argument("--compaction", action="store_true")
    parser.add_argument("--clip-renders", type=Path)
    parser.add_argument("--device", default="cuda")
    args = parser.parse_args()
    print(f"{machine_line()}; svgeval at {Path(svgeval.__file__).parent}")
    sizes = [int(size) for size in args.samples.split(",")]
    with tempfile.TemporaryDirectory() as scratch:
        if args.clip_renders:
            return clip_rounds(Path(scratch), sizes, args.batch, args.rounds, args.clip_renders,
                               args.device)
        if args.compaction:
            for n in sizes:
                wall, cpu = map(min, zip(*(compaction_seconds(Path(scratch), n, args.batch)
                                           for _ in range(args.rounds))))
                print(f"{n:6d} records, compacted (best of {args.rounds}): wall {wall:.3f} s "
                      f"({wall / n * 1e6:.1f} us a record), CPU {cpu:.3f} s "
                      f"({cpu / n * 1e6:.1f} us a record)", flush=True)
            return
        score = functools.partial(metrics, network_us=args.network_us)
        for round_ in range(1, args.rounds + 1):
            for n in sizes:
                stage = stage_seconds(Path(scratch), n, args.batch, score)
                if args.network_us:
                    network = n * args.network_us * 1e-6
                    print(f"round {round_}: {n:6d} samples, batch {args.batch}, network "
                          f"{args.network_us:g} us a sample: stage {stage:6.2f} s, the network's "
                          f"wait alone {network:6.2f} s, {network / stage:4.0%}", flush=True)
                    continue
                floor = floor_seconds(Path(scratch), n, args.batch)
                print(f"round {round_}: {n:6d} samples, batch {args.batch}: stage {stage:7.2f} s "
                      f"({stage / n * 1e6:6.0f} us a sample), floor {floor:5.2f} s "
                      f"({floor / n * 1e6:4.0f} us a sample), {stage / floor:5.2f} x floor",
                      flush=True)


if __name__ == "__main__":
    main()

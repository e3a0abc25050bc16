"""Scoring throughput with ``--executor local`` and ``--executor ray``, and Ray's per-task
overhead.

    python -m bench executors [--data ../shared/data/svgeditbench]

On this machine, with one local Ray instance (started once, its start-up timed apart):

* round trips: an empty Ray task, and an empty call of a live actor, one at a time;
* one scoring call with N renders (N = 1, 4, 16 renders of a 72 px icon) on a Ray actor owning
  its own renderer, against the floor: the same call in this process's isolated renderer (the
  difference is Ray's overhead per scoring task);
* SVGEditBench with the identity model (two renders per sample) through :class:`Runner` on Ray
  (the Ray run's actor start-up included, as a user sees it), against the floor: the same run
  local.

Needs the ``ray`` extra; skipped without it.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench.measure import Figures, Scale, needs, seconds_of, svgeditbench

if TYPE_CHECKING:
    from svgeval.render.isolated import Renderer


def renders(renderer: Renderer, svg: str, count: int) -> int:
    """``count`` isolated renders of ``svg`` at 72 px; the number that succeeded."""
    from svgeval.render.cairo import RenderSpec
    from svgeval.render.picture import Picture

    return sum(isinstance(renderer.render(svg, RenderSpec.square(72)), Picture)
               for _ in range(count))


class RenderActor:
    """A Ray actor with its own one-process renderer, like the Ray executor's scorers."""

    def __init__(self) -> None:
        from svgeval.render.isolated import Renderer

        self.renderer = Renderer(workers=1)

    def renders(self, svg: str, count: int) -> int:
        return renders(self.renderer, svg, count)

    def nothing(self) -> None:
        return None


def nothing() -> None:
    return None


def per_call_ms(call: Callable[[], object], repeat: int) -> float:
    return 1000 * seconds_of(lambda: [call() for _ in range(repeat)]) / repeat


def identity_rate(data: Path, executor: str, limit: int | None) -> tuple[int, float]:
    """(samples, samples/s) of the identity model run by :class:`Runner` with ``executor``
    (loading the data not timed), ``limit`` samples of each group (None: all)."""
    from svgeval.run_request import RunRequest
    from svgeval.runner.build import build_runner

    with tempfile.TemporaryDirectory() as scratch:
        runner = build_runner(RunRequest(task="svgeditbench", data=data, out_dir=Path(scratch),
                                         executor=executor, limit=limit))
        resumed = runner.prepare(resume=False)
        started = time.perf_counter()
        summary = asyncio.run(runner.run(resumed))
        return summary.n, summary.n / (time.perf_counter() - started)


def run(scale: Scale) -> Figures:
    needs("ray", extra='pip install -e ".[ray]"')
    import ray

    from svgeval.render.isolated import Renderer
    from svgeval.runner.ray_executor import OBJECT_STORE_BYTES
    from svgeval.tasks.base import CommonOptions
    from svgeval.tasks.svgeditbench import SvgEditBench

    data = svgeditbench(scale)
    repeat = scale.pick("repeat", 40, 4)
    figures = Figures()
    started = time.perf_counter()
    ray.init(num_cpus=os.cpu_count() or 1, include_dashboard=False, log_to_driver=False,
             object_store_memory=OBJECT_STORE_BYTES)
    try:
        figures.note(f"ray {ray.__version__} local instance start: "
                     f"{time.perf_counter() - started:.1f} s")
        task = ray.remote(nothing)
        ray.get(task.remote())
        figures.note(f"empty task round trip: "
                     f"{per_call_ms(lambda: ray.get(task.remote()), 5 * repeat):.2f} ms")
        actor: Any = ray.remote(RenderActor).remote()
        ray.get(actor.nothing.remote())
        figures.note(f"empty actor call round trip: "
                     f"{per_call_ms(lambda: ray.get(actor.nothing.remote()), 10 * repeat):.2f} ms")
        svg = SvgEditBench(CommonOptions(data=data)).load()[0].input_svg or ""
        with Renderer(workers=1) as local:
            renders(local, svg, 4)  # warm: the render process is up and has imported CairoSVG
            ray.get(actor.renders.remote(svg, 4))
            for count in (1, 4, 16):
                here = per_call_ms(lambda n=count: renders(local, svg, n), repeat)  # type: ignore[misc]
                there = per_call_ms(lambda n=count: ray.get(actor.renders.remote(svg, n)),  # type: ignore[misc]
                                    repeat)
                figures.add(f"scoring call with {count} renders, Ray actor", there, "ms", here,
                            "the same call, local")
        ray.kill(actor)
        limit = 2 if scale.smoke else None
        n, local_rate = identity_rate(data, "local", limit)
        _, ray_rate = identity_rate(data, "ray", limit)
        figures.add(f"identity run on Ray, {n} samples", ray_rate, "samples/s", local_rate,
                    "the same run, local")
    finally:
        ray.shutdown()
    return figures

"""Scoring throughput with ``--executor local`` and ``--executor ray``, and Ray's per-task overhead.

Run by hand:  .venv/bin/python bench/bench_executors.py [--data ../shared/data/svgeditbench]

On this machine, with one local Ray instance (started once, its start-up timed apart):

* round trips: an empty Ray task, and an empty call of a live actor, one at a time;
* one scoring call with N renders (N = 1, 4, 16 renders of a 72 px icon), in this process's
  isolated renderer and on a Ray actor owning its own renderer: the difference is Ray's
  overhead per scoring task;
* SVGEditBench with the identity model (two renders per sample) through :class:`Runner`, local
  and on Ray (the Ray run's actor start-up included, as a user sees it).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

import ray
from common import identity_run_rate, svgeditbench_arguments

from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.runner import RunSettings
from svgeval.runner.ray_executor import OBJECT_STORE_BYTES
from svgeval.tasks.base import CommonOptions
from svgeval.tasks.svgeditbench import SvgEditBench

SPEC = RenderSpec.square(72)


def renders(renderer: Renderer, svg: str, count: int) -> int:
    """``count`` isolated renders of ``svg``; the number that succeeded."""
    return sum(renderer.render(svg, SPEC).ok for _ in range(count))


class RenderActor:
    """A Ray actor with its own one-process renderer, like the Ray executor's scorers."""

    def __init__(self) -> None:
        self.renderer = Renderer(workers=1)

    def renders(self, svg: str, count: int) -> int:
        return renders(self.renderer, svg, count)

    def nothing(self) -> None:
        return None


def nothing() -> None:
    return None


def per_call_ms(call: Callable[[], object], repeat: int) -> float:
    started = time.perf_counter()
    for _ in range(repeat):
        call()
    return 1000 * (time.perf_counter() - started) / repeat


def main() -> None:
    args = svgeditbench_arguments(__doc__)
    started = time.perf_counter()
    ray.init(num_cpus=os.cpu_count() or 1, include_dashboard=False, log_to_driver=False,
             object_store_memory=OBJECT_STORE_BYTES)
    print(f"ray {ray.__version__} local instance start: {time.perf_counter() - started:.1f} s")
    task = ray.remote(nothing)
    ray.get(task.remote())
    print(f"empty task round trip: {per_call_ms(lambda: ray.get(task.remote()), 200):.2f} ms")
    actor = ray.remote(RenderActor).remote()
    ray.get(actor.nothing.remote())
    print(f"empty actor call round trip: "
          f"{per_call_ms(lambda: ray.get(actor.nothing.remote()), 500):.2f} ms")
    svg = SvgEditBench(CommonOptions(data=args.data)).load()[0].input_svg or ""
    with Renderer(workers=1) as local:
        renders(local, svg, 4)  # warm: the render process is up and has imported CairoSVG
        ray.get(actor.renders.remote(svg, 4))
        for count in (1, 4, 16):
            here = per_call_ms(lambda n=count: renders(local, svg, n), 40)  # type: ignore[misc]
            there = per_call_ms(lambda n=count: ray.get(actor.renders.remote(svg, n)), 40)  # type: ignore[misc]
            print(f"scoring call with {count:2d} renders: local {here:.1f} ms, "
                  f"Ray actor {there:.1f} ms, overhead {there - here:+.1f} ms")
    ray.kill(actor)
    for executor in ("local", "ray"):
        n, rate = identity_run_rate(args.data, RunSettings(executor=executor))
        print(f"executor {executor}: {n} samples, {rate:.1f} samples/s")
    ray.shutdown()


if __name__ == "__main__":
    main()

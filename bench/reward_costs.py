"""Where one reward call's CPU goes, a render at a time, and the share of the floor it allows.

Run by hand: .venv/bin/python bench/reward_costs.py [--data ../shared/data/svgeditbench]
             [--runs 3] [--size 128] [--prompts 168] [--renderers skia,cairosvg]

For the GRPO step of ``bench_rewards.py`` (the ``fast`` preset at ``--size``), the CPU time of
each stage of the work, per render, measured in this one process set up as a render worker is
(its freed memory kept, OpenCV on one thread), the least over ``--runs`` rounds:

* ``plain draw``: the floor's own work (``reward_floor.py``'s draw: the renderer's calls and
  nothing else);
* ``svgeval render``: svgeval's render function (the sanitiser, the viewBox fitted, RGB out);
* ``group, no terms``: :func:`~svgeval.rewards.groups.score_group` with no image term: the
  render, the blank check and the reference's render packed, as a worker does it;
* ``group, fast terms``: the same with the preset's image terms (pixel and Sobel);
* ``main process``: the CPU time of a real reward call's main process (``RewardScorer``, every
  reference drawn again: extraction, scheduling, the results' transport, the code terms and the
  combination), per render; its workers run apart.

The floor's throughput is the plain draw on every core. A reward call needs the workers' CPU
(the group with terms) and the main process's on the same cores, so however well the two
overlap its share of the floor is at most ``plain / (group with terms + main process)``, printed
last with the CPU a render may take beyond the plain draw at :data:`TARGET`. (It assumes a
render costs the floor's processes what it costs this one: two processes drawing side by side
each draw somewhat slower, so a measured share can come out a little above it.)
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from dataclasses import replace

from svgeval.render.pool import OPENCV_THREADS, _keep_freed_memory

os.environ.setdefault(*OPENCV_THREADS)  # before OpenCV first loads, as in a render worker
_keep_freed_memory()

from bench_rewards import PROMPTS, in_process, step, step_groups, step_renders
from common import svgeditbench_arguments
from reward_floor import draw_all

from svgeval.render.backends import render_function
from svgeval.render.batch import RenderFunction, render_chunk
from svgeval.render.cairo import RenderSpec
from svgeval.rewards import RewardScorer
from svgeval.rewards.groups import GroupJob, score_group
from svgeval.rewards.presets import RewardPreset, get_reward_preset
from svgeval.rewards.terms import TERMS

TARGET = 0.7
"""Issue 30's target: a reward call at 70% of the floor's throughput."""


def least_cpu_seconds(stages: dict[str, Callable[[], object]], runs: int) -> dict[str, float]:
    """The least CPU time of this process for each stage over ``runs`` rounds, the stages taken
    in turn in each round (after one warm-up round), so a slower spell of the machine falls on
    all of them."""
    least = {name: float("inf") for name in stages}
    for round_ in range(runs + 1):
        for name, work in stages.items():
            started = time.process_time()
            work()
            if round_:
                least[name] = min(least[name], time.process_time() - started)
    return least


def group_jobs(completions: list[str], references: list[str], spec: RenderSpec,
               terms: tuple[str, ...]) -> list[GroupJob]:
    """The step's groups as the scorer sends them (``bench_rewards.step_groups``)."""
    return [GroupJob(reference, tuple(svgs), spec, terms, False)
            for reference, svgs in step_groups(completions, references)]


def render_each(svgs: list[str], spec: RenderSpec, render: RenderFunction) -> int:
    """Draw each SVG with svgeval's ``render`` as a worker does (a failure is a result), one
    at a time, its pixels dropped (as the plain draw's); the number drawn."""
    for svg in svgs:
        render_chunk([(svg, spec)], render)
    return len(svgs)


def micros_a_render(renderer: str, completions: list[str], references: list[str],
                    svgs: list[str], preset: RewardPreset, runs: int) -> dict[str, float]:
    """Each stage's least CPU time (module doc), in microseconds a render of ``svgs`` (what the
    call draws)."""
    spec = RenderSpec.square(preset.render_size)
    terms = tuple(t for t in preset.active() if TERMS[t].kind == "image")
    with_terms = group_jobs(completions, references, spec, terms)
    without = [replace(job, terms=()) for job in with_terms]
    render = render_function(renderer)
    with RewardScorer(preset, render_function=render) as scorer:
        stages: dict[str, Callable[[], object]] = {
            "plain draw": lambda: draw_all(renderer, svgs, spec.width),
            "svgeval render": lambda: render_each(svgs, spec, render),
            "group, no terms": lambda: [score_group(job, render) for job in without],
            "group, fast terms": lambda: [score_group(job, render) for job in with_terms],
            "main process": lambda: in_process(scorer, completions, references),
        }
        least = least_cpu_seconds(stages, runs)
    return {name: 1e6 * seconds / len(svgs) for name, seconds in least.items()}


def main() -> None:
    def more(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--runs", type=int, default=3)
        parser.add_argument("--size", type=int, default=128)
        parser.add_argument("--prompts", type=int, default=PROMPTS)
        parser.add_argument("--renderers", default="skia,cairosvg")

    args = svgeditbench_arguments(__doc__, more)
    completions, references = step(args.data, args.prompts)
    preset = replace(get_reward_preset("fast"), render_size=args.size)
    svgs = step_renders(args.data, args.prompts)
    terms = ", ".join(t for t in preset.active() if TERMS[t].kind == "image")
    print(f"{len(completions)} completions, {len(svgs)} renders at {args.size} px (image terms: "
          f"{terms}), least of {args.runs} rounds")
    for renderer in args.renderers.split(","):
        micros = micros_a_render(renderer, completions, references, svgs, preset, args.runs)
        for name, value in micros.items():
            print(f"{renderer:8} {name:18}: {value:7.0f} us a render")
        plain, spent = micros["plain draw"], micros["group, fast terms"] + micros["main process"]
        print(f"{renderer:8} share of the floor this CPU allows: {100 * plain / spent:.0f}%; "
              f"beyond the plain draw {spent - plain:.0f} us a render, where "
              f"{TARGET:.0%} of the floor leaves {plain / TARGET - plain:.0f}", flush=True)


if __name__ == "__main__":
    main()

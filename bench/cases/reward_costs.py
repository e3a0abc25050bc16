"""Where one reward call's CPU goes, a render at a time, and the share of the floor it allows.

    python -m bench reward-costs [--data ../shared/data/svgeditbench] [--set runs=3]
        [--set size=128] [--set prompts=168] [--set renderers=skia,cairosvg]

For the GRPO step of the ``rewards`` case (the ``fast`` preset at ``size``), the CPU time of
each stage of the work, per render, measured in this one process set up as a render worker is
(its freed memory kept, OpenCV on one thread: set before OpenCV first loads, so run the case
alone), the least over ``runs`` rounds:

* ``safe render`` (the floor, :func:`bench.floors.draw_all`): the sanitiser and the renderer's
  drawing, nothing else;
* ``svgeval render``: the same through a render worker's chunk (a failure is a result, RGB out);
* ``group, no terms``: :func:`~svgeval.rewards.groups.score_group` with no image term: the
  render, the blank check and the reference's render packed, as a worker does it;
* ``group, fast terms``: the same with the preset's image terms (pixel and Sobel);
* ``main process``: the CPU time of a real reward call's main process (``RewardScorer``, every
  reference drawn again: extraction, scheduling, the results' transport, the code terms and the
  combination), per render; its workers run apart.

The floor's throughput is the safe render on every core. A reward call needs the workers' CPU
(the group with terms) and the main process's on the same cores, so however well the two
overlap its share of the floor is at most ``safe render / (group with terms + main process)``,
the last figure, with the CPU a render may take beyond the safe render at :data:`TARGET` in the
notes. (It assumes a render costs the floor's processes what it costs this one: two processes
drawing side by side each draw somewhat slower, so a measured share can come out a little above
it.)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from bench.floors import draw_all
from bench.grpo_step import PROMPTS, step, step_groups, step_renders
from bench.measure import Figures, Scale, svgeditbench

if TYPE_CHECKING:
    from svgeval.render.batch import RenderFunction
    from svgeval.render.cairo import RenderSpec
    from svgeval.rewards.groups import GroupJob
    from svgeval.rewards.presets import RewardPreset

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
    """The step's groups as the scorer sends them (:func:`bench.grpo_step.step_groups`)."""
    from svgeval.rewards.groups import GroupJob

    return [GroupJob(reference, tuple(svgs), spec, terms, False)
            for reference, svgs in step_groups(completions, references)]


def render_each(svgs: list[str], spec: RenderSpec, render: RenderFunction) -> int:
    """Draw each SVG with svgeval's ``render`` as a worker does (a failure is a result), one
    at a time, its pixels dropped (as the floor's); the number drawn."""
    from svgeval.render.batch import render_chunk

    for svg in svgs:
        render_chunk([(svg, spec)], render)
    return len(svgs)


def micros_a_render(renderer: str, completions: list[str], references: list[str],
                    svgs: list[str], preset: RewardPreset, runs: int) -> dict[str, float]:
    """Each stage's least CPU time (module doc), in microseconds a render of ``svgs`` (what the
    call draws)."""
    from bench.cases.rewards import in_process
    from svgeval.render.backends import render_function
    from svgeval.render.cairo import RenderSpec
    from svgeval.rewards import RewardScorer
    from svgeval.rewards.groups import score_group
    from svgeval.rewards.terms import TERMS

    spec = RenderSpec.square(preset.render_size)
    terms = tuple(t for t in preset.active() if TERMS[t].kind == "image")
    with_terms = group_jobs(completions, references, spec, terms)
    without = [replace(job, terms=()) for job in with_terms]
    render = render_function(renderer)
    with RewardScorer(preset, render_function=render) as scorer:
        stages: dict[str, Callable[[], object]] = {
            "safe render": lambda: draw_all(renderer, svgs, spec.width),
            "svgeval render": lambda: render_each(svgs, spec, render),
            "group, no terms": lambda: [score_group(job, render) for job in without],
            "group, fast terms": lambda: [score_group(job, render) for job in with_terms],
            "main process": lambda: in_process(scorer, completions, references),
        }
        least = least_cpu_seconds(stages, runs)
    return {name: 1e6 * seconds / len(svgs) for name, seconds in least.items()}


def run(scale: Scale) -> Figures:
    from svgeval.render.pool import _keep_freed_memory, one_opencv_thread
    from svgeval.rewards.presets import get_reward_preset
    from svgeval.rewards.terms import TERMS

    one_opencv_thread()  # as in a render worker
    _keep_freed_memory()
    runs, size = scale.pick("runs", 3, 1), scale.pick("size", 128, 128)
    prompts = scale.pick("prompts", PROMPTS, 4)
    renderers = scale.pick("renderers", "skia,cairosvg", "skia,cairosvg").split(",")
    completions, references = step(svgeditbench(scale), prompts)
    preset = replace(get_reward_preset("fast"), render_size=size)
    svgs = step_renders(completions, references)
    terms = ", ".join(t for t in preset.active() if TERMS[t].kind == "image")
    figures = Figures()
    figures.note(f"{len(completions)} completions, {len(svgs)} renders at {size} px (image "
                 f"terms: {terms}), least CPU of {runs} rounds")
    for renderer in renderers:
        micros = micros_a_render(renderer, completions, references, svgs, preset, runs)
        floor = micros.pop("safe render")
        for name, value in micros.items():
            figures.add(f"{renderer}: {name}", value, "us/render", floor, "safe render CPU")
        spent = micros["group, fast terms"] + micros["main process"]
        figures.add(f"{renderer}: share of the floor this CPU allows", floor / spent, "share",
                    1.0, "the floor's share", least=TARGET)
        figures.note(f"{renderer}: beyond the safe render {spent - floor:.0f} us a render, "
                     f"where {TARGET:.0%} of the floor leaves {floor / TARGET - floor:.0f}")
    return figures

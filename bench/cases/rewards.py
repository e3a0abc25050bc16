"""Reward throughput at 128 px against the safe-render floor: one GRPO step of 1,344 completions.

    python -m bench rewards [--data ../shared/data/svgeditbench] [--set runs=3]
        [--set size=128] [--set prompts=168] [--set renderers=skia,cairosvg]

The step is :mod:`bench.grpo_step`'s (168 prompts x 8 rollouts). For each renderer, measured
side by side in one run and interleaved, ``runs`` times:

* the floor (:func:`bench.floors.safe_render_seconds`): the renders one reward call draws (each
  prompt's reference and each distinct SVG of its completions: the scorer draws a repeated
  completion, or one that is the reference, once), sanitised and drawn in a bare loop, one
  warm process per core, nothing else;
* ``RewardScorer("fast")`` in process (pixel, Sobel and length terms, at 128 px or ``size``),
  its reference memo emptied first so that it draws everything the floor draws;
* the same through ``serve-rewards``'s app on loopback (one POST of the whole step).

Each figure is rewards/s; its ratio is the share of the floor's throughput (floor time /
reward time). The target (issue 30): at least 70% of the floor's. The notes give the load
average when each run started.
"""

from __future__ import annotations

import socket
import threading
from dataclasses import replace
from typing import TYPE_CHECKING

from bench.floors import safe_render_seconds
from bench.grpo_step import PROMPTS, step, step_renders
from bench.measure import Figures, Scale, load, seconds_of, svgeditbench

if TYPE_CHECKING:
    from svgeval.rewards import RewardScorer

TARGET = 0.7
"""Issue 30's target: a reward call at 70% of the floor's throughput."""


def in_process(scorer: RewardScorer, completions: list[str], references: list[str]) -> float:
    """Seconds of one reward call, every reference drawn again."""
    from svgeval.render.memo import RenderMemo

    scorer.references = RenderMemo(scorer.references.budget_bytes)
    return seconds_of(lambda: scorer.score(completions, references))


def through_server(scorer: RewardScorer, completions: list[str], references: list[str]) -> float:
    """Seconds of one POST of the step to ``serve-rewards``'s app on loopback."""
    import httpx
    import uvicorn

    from svgeval.render.memo import RenderMemo
    from svgeval.rewards.server import create_app

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    server = uvicorn.Server(uvicorn.Config(create_app(scorer), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/rewards"
    items = [{"completion": c, "reference": r, "task": "edit"}
             for c, r in zip(completions, references)]
    try:
        with httpx.Client(timeout=600) as client:
            client.post(url, json={"items": items[:16]}).raise_for_status()
            scorer.references = RenderMemo(scorer.references.budget_bytes)
            return seconds_of(lambda: client.post(url, json={"items": items}).raise_for_status())
    finally:
        server.should_exit = True
        thread.join()
        sock.close()


def run(scale: Scale) -> Figures:
    from svgeval.render.backends import render_function
    from svgeval.rewards import RewardScorer
    from svgeval.rewards.presets import get_reward_preset

    runs, size = scale.pick("runs", 3, 1), scale.pick("size", 128, 128)
    prompts = scale.pick("prompts", PROMPTS, 8)
    renderers = scale.pick("renderers", "skia,cairosvg", "skia,cairosvg").split(",")
    completions, references = step(svgeditbench(scale), prompts)
    drawn = step_renders(completions, references)
    preset = replace(get_reward_preset("fast"), render_size=size)
    n = len(completions)
    figures = Figures()
    figures.note(f"{n} completions, {len(drawn)} renders a call at {size} px")
    for run_ in range(1, runs + 1):
        for renderer in renderers:
            figures.note(f"run {run_}, {renderer}: load average {load()} at its start")
            with RewardScorer(preset, render_function=render_function(renderer)) as scorer:
                scorer.score(completions[:16], references[:16])  # start the workers
                floor = safe_render_seconds(renderer, drawn, size)
                for name, seconds in (
                        ("in process", in_process(scorer, completions, references)),
                        ("server loopback", through_server(scorer, completions, references))):
                    figures.add(f"run {run_}, {renderer}: rewards {name}", n / seconds,
                                "rewards/s", n / floor, "safe render, warm process per core",
                                least=TARGET)
    return figures

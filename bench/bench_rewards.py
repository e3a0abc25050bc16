"""Reward throughput against its floor: one GRPO step of 1,344 completions (168 prompts x 8).

Run by hand:  .venv/bin/python bench/bench_rewards.py [--data ../shared/data/svgeditbench] [--runs 3]
              [--size 128] [--prompts 168]

References are SVGEditBench answers; each prompt's 8 rollouts mix the reference, a fenced copy,
other icons, a truncated answer and a refusal. For each renderer (skia, CairoSVG), measured
side by side in one run and interleaved, ``--runs`` times:

* the floor (``reward_floor.py``): the same renders (each prompt's reference and each distinct
  SVG of its completions: the scorer draws a repeated completion, or one that is the reference,
  once) by a plain loop in one process per core, nothing else;
* ``RewardScorer("fast")`` in process (pixel, Sobel and length terms, at 128 px or
  ``--size``), its reference memo emptied first so that it draws everything the floor draws;
* the same through ``serve-rewards``'s app on loopback (one POST of 1,344 items).

Each line gives rewards/s, the share of the floor's throughput (floor time / reward time) and
the 1-minute load average when the row started.
"""

from __future__ import annotations

import argparse
import functools
import os
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from common import svgeditbench_arguments
from reward_floor import floor_seconds

from svgeval.render.backends import render_function
from svgeval.render.memo import RenderMemo
from svgeval.rewards import RewardScorer
from svgeval.rewards.presets import get_reward_preset
from svgeval.svg.extract import extract_svg

PROMPTS, ROLLOUTS = 168, 8


def step(data: Path, prompts: int = PROMPTS) -> tuple[list[str], list[str]]:
    """``prompts`` x 8 (completion, reference) pairs (1,344 by default); past the 597th prompt,
    the answers are taken again from the first."""
    answers = [p.read_text() for p in sorted(data.glob("*/answer/*.svg"))]
    completions, references = [], []
    for k in (i % (len(answers) - 3) for i in range(prompts)):
        ref = answers[k]
        rollouts = [ref, f"```svg\n{ref}\n```", answers[k + 1], answers[k + 2], ref[: len(ref) // 2],
                    "I cannot do that.", ref.replace("fill", "stroke", 1), answers[k + 3]]
        completions += rollouts
        references += [ref] * ROLLOUTS
    return completions, references


def step_groups(completions: list[str], references: list[str]) -> list[tuple[str, list[str]]]:
    """Each prompt's reference and the SVGs of its completions that hold one, as the scorer
    extracts them."""
    groups = []
    for start in range(0, len(completions), ROLLOUTS):
        found = (extract_svg(c).svg for c in completions[start:start + ROLLOUTS])
        groups.append((extract_svg(references[start]).svg or references[start],
                       [svg for svg in found if svg]))
    return groups


def step_renders(data: Path, prompts: int = PROMPTS) -> list[str]:
    """What one reward call of the step draws: each prompt's reference and each distinct SVG
    of its completions that is not the reference (a group draws a repeat once)."""
    drawn = []
    for reference, svgs in step_groups(*step(data, prompts)):
        drawn += [reference, *(svg for svg in dict.fromkeys(svgs) if svg != reference)]
    return drawn


def timed(call: Callable[[], object]) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def in_process(scorer: RewardScorer, completions: list[str], references: list[str]) -> float:
    """Seconds of one reward call, every reference drawn again."""
    scorer.references = RenderMemo(scorer.references.budget_bytes)
    return timed(lambda: scorer.score(completions, references))


def through_server(scorer: RewardScorer, completions: list[str], references: list[str]) -> float:
    """Seconds of one POST of the step to ``serve-rewards``'s app on loopback."""
    import httpx
    import uvicorn

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
            return timed(lambda: client.post(url, json={"items": items}).raise_for_status())
    finally:
        server.should_exit = True
        thread.join()
        sock.close()


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--size", type=int, default=128,
                        help="render side in px (the preset's 128 by default; 512 is RLRF's)")
    parser.add_argument("--prompts", type=int, default=PROMPTS,
                        help=f"prompts of 8 rollouts ({PROMPTS} by default)")


def main() -> None:
    args = svgeditbench_arguments(__doc__, arguments)
    completions, references = step(args.data, args.prompts)
    drawn = step_renders(args.data, args.prompts)
    preset = replace(get_reward_preset("fast"), render_size=args.size)
    n = len(completions)
    print(f"{n} completions, {len(drawn)} renders a call at {args.size} px")
    for run in range(1, args.runs + 1):
        for renderer in ("skia", "cairosvg"):
            with RewardScorer(preset, render_function=render_function(renderer)) as scorer:
                scorer.score(completions[:16], references[:16])  # start the workers
                rows = [("floor", functools.partial(floor_seconds, renderer, drawn,
                                                    size=args.size)),
                        ("in process", lambda: in_process(scorer, completions, references)),
                        ("server loopback", lambda: through_server(scorer, completions,
                                                                   references))]
                floor = None
                for name, measure in rows:
                    load = os.getloadavg()[0]
                    seconds = measure()
                    floor = seconds if floor is None else floor
                    print(f"run {run} {renderer:8} {name:15}: {n / seconds:7.1f} rewards/s "
                          f"({seconds:.3f} s), {100 * floor / seconds:5.1f}% of the floor, "
                          f"load {load:.2f}", flush=True)


if __name__ == "__main__":
    main()

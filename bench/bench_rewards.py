"""Reward throughput: one GRPO step of 1,344 completions (168 prompts x 8 rollouts).

Run by hand:  .venv/bin/python bench/bench_rewards.py [--data ../shared/data/svgeditbench]
References are SVGEditBench answers; each prompt's 8 rollouts mix the reference, a fenced copy,
other icons, a truncated answer and a refusal. Measured side by side in one run:

* baseline: a plain CairoSVG thread-pool reward loop (``cairosvg.svg2png`` of prediction and
  reference per completion, PNG decoded with Pillow, reward ``1 - RMSE``, one thread per core);
* ``RewardScorer("fast")`` in process (pixel, edge and length terms), CairoSVG and resvg;
* the same through ``serve-rewards``'s app on loopback (one POST of 1,344 items).

The share of time spent rendering is the scorer's wall time waiting for renders
(``RewardScorer.render_seconds``) over the time of the whole reward call. Renders are 128 px (the preset's size).
"""

from __future__ import annotations

import io
import os
import socket
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from common import svgeditbench_arguments

from svgeval.rewards import RewardScorer
from svgeval.svg.extract import extract_svg
from svgeval.svg.render_memo import RenderMemo
from svgeval.svg.renderers import render_function

PROMPTS, ROLLOUTS, SIZE = 168, 8, 128


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


def baseline_loop(completions: list[str], references: list[str]) -> float:
    """Plain thread-pool loop: CairoSVG PNGs, Pillow decode, ``1 - RMSE``; -1 on any failure."""
    import cairosvg
    from PIL import Image

    def png(svg: str) -> np.ndarray:
        data = cairosvg.svg2png(bytestring=svg.encode(), output_width=SIZE, output_height=SIZE,
                                background_color="white")
        return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"), np.float64) / 255

    def reward(pair: tuple[str, str]) -> float:
        try:
            a, b = png(extract_svg(pair[0]).svg or ""), png(pair[1])
            return float(1 - np.sqrt(np.mean((a - b) ** 2)))
        except Exception:  # noqa: BLE001 - a plain loop: any failure is the penalty
            return -1.0

    started = time.perf_counter()
    with ThreadPoolExecutor(os.cpu_count() or 1) as threads:
        list(threads.map(reward, zip(completions, references)))
    return time.perf_counter() - started


def timed(call: Callable[[], object]) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def in_process(renderer: str, completions: list[str], references: list[str]) -> tuple[float, float]:
    """(seconds for the reward call, seconds for its renders alone)."""
    function = render_function(renderer)
    with RewardScorer("fast", render_function=function) as scorer:
        scorer.score(completions[:16], references[:16])  # start the workers
        scorer.references = RenderMemo(scorer.references.budget_bytes)
        scorer.render_seconds = 0.0
        total = timed(lambda: scorer.score(completions, references))
    return total, scorer.render_seconds


def through_server(renderer: str, completions: list[str], references: list[str]) -> float:
    import httpx
    import uvicorn

    from svgeval.rewards.server import create_app

    with RewardScorer("fast", render_function=render_function(renderer)) as scorer:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        server = uvicorn.Server(uvicorn.Config(create_app(scorer), log_level="warning"))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/rewards"
        items = [{"completion": c, "reference": r, "task": "edit"}
                 for c, r in zip(completions, references)]
        with httpx.Client(timeout=600) as client:
            client.post(url, json={"items": items[:16]}).raise_for_status()
            scorer.references = RenderMemo(scorer.references.budget_bytes)
            seconds = timed(lambda: client.post(url, json={"items": items}).raise_for_status())
        server.should_exit = True
        thread.join()
        sock.close()
    return seconds


def main() -> None:
    args = svgeditbench_arguments(__doc__)
    completions, references = step(args.data)
    n = len(completions)
    base = baseline_loop(completions, references)
    print(f"baseline CairoSVG thread-pool loop: {n / base:7.1f} rewards/s ({base:.2f} s)")
    for renderer in ("cairosvg", "skia", "resvg"):
        total, renders = in_process(renderer, completions, references)
        print(f"in process, {renderer:8}: {n / total:7.1f} rewards/s ({total:.2f} s), "
              f"{base / total:.1f}x baseline, rendering {100 * renders / total:.0f}% of the time")
        served = through_server(renderer, completions, references)
        print(f"server loopback, {renderer:8}: {n / served:7.1f} rewards/s ({served:.2f} s), "
              f"{base / served:.1f}x baseline")


if __name__ == "__main__":
    main()

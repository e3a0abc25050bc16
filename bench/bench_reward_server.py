"""``svgeval serve-rewards`` as a separate process under several clients: latency, memory, body.

Run by hand:  .venv/bin/python bench/bench_reward_server.py [--data ../shared/data/svgeditbench]
              [--src SRC ...] [--sections latency memory body]
Each ``--src`` is an svgeval source folder (``src`` of a checkout) that the server runs from, so
two commits are measured side by side in one run (default: this checkout's). The server runs
``--preset fast --workers 2`` (pixel, edge, length: no neural term, so renders dominate).

* latency: 8 clients each send 10 requests of 100 items, one after another (8,000 items: the
  bench_rewards rollout mix over 1,000 SVGEditBench prompts); each request's latency, p50 / p95 /
  max over the 80, the wall time, and the CPU time of the server process and of its render
  workers (those alive at the end: a worker killed at its time limit takes its time along). Then the same with one completion of client 0's fourth
  request replaced by a 1.9 MB path (CairoSVG takes about a minute to fill it; it reaches the
  10 s render limit twice: in its chunk, then alone). Floor: the same renders (every completion
  with an SVG, each distinct reference once) through a 2-worker ``Renderer`` in this process,
  with no server, no HTTP and no scoring.
* memory: 5,000 distinct references (SVGEditBench answers, each with a 1 px mark of its own), in
  10 requests of 500 items (completion = reference); the server's resident memory before (after
  one warm-up request) and after.
* body: one request whose body declares 600 MB and streams it (a JSON item whose completion is
  600 MB of text); the status, the seconds until the answer, and the server's peak memory.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import numpy as np
from bench_rewards import step
from common import svgeditbench_arguments

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "rewards"))
from cases import long_path_svg
from served import Served, serve_rewards

from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer, render_many
from svgeval.svg.extract import extract_svg

CLIENTS, REQUESTS, ITEMS = 8, 10, 100
SERVER = ("--preset", "fast", "--workers", "2")
MIB = 1024 * 1024


def status_mib(served: Served, field: str) -> float:
    status = Path(f"/proc/{served.process.pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines()
                    if line.startswith(field + ":"))) / 1024


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of the processes ``pids`` so far (those still running)."""
    ticks = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def items(completions: list[str], references: list[str]) -> list[dict[str, str]]:
    return [{"completion": c, "reference": r, "task": "edit"}
            for c, r in zip(completions, references)]


def clients(url: str, requests: list[list[list[dict[str, str]]]]) -> tuple[list[float], float]:
    """Each client sends its requests one after another; (every latency, wall seconds)."""
    latencies: list[float] = []

    def client(own: list[list[dict[str, str]]]) -> None:
        with httpx.Client(timeout=600) as http:
            for body in own:
                started = time.perf_counter()
                http.post(f"{url}/rewards", json={"items": body}).raise_for_status()
                latencies.append(time.perf_counter() - started)

    started = time.perf_counter()
    threads = [threading.Thread(target=client, args=(own,)) for own in requests]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies, time.perf_counter() - started


def latency(src: Path, data: Path) -> None:
    completions, references = step(data, prompts=CLIENTS * REQUESTS * ITEMS // 8)
    all_items = items(completions, references)
    per_request = [all_items[i:i + ITEMS] for i in range(0, len(all_items), ITEMS)]
    clean = [per_request[c::CLIENTS] for c in range(CLIENTS)]
    slow = [list(own) for own in clean]
    slow[0][3] = [{**slow[0][3][0], "completion": long_path_svg()}, *slow[0][3][1:]]
    for name, requests in (("clean", clean), ("one 1.9 MB path", slow)):
        with serve_rewards(*SERVER, env={"PYTHONPATH": str(src)}) as served:
            httpx.post(f"{served.url}/rewards", json={"items": per_request[0][:16]},
                       timeout=600).raise_for_status()  # workers started
            workers = served.render_workers()
            server_cpu, workers_cpu = cpu_seconds([served.process.pid]), cpu_seconds(workers)
            seconds, wall = clients(served.url, requests)
            server_cpu = cpu_seconds([served.process.pid]) - server_cpu
            workers_cpu = cpu_seconds(served.render_workers()) - workers_cpu
        p50, p95 = np.percentile(seconds, [50, 95])
        print(f"  {name:16} {len(all_items)} items: p50 {p50:5.2f} s, p95 {p95:5.2f} s, "
              f"max {max(seconds):5.2f} s, wall {wall:5.2f} s; CPU: server {server_cpu:5.1f} s, "
              f"render workers {workers_cpu:5.1f} s")


def render_floor(data: Path) -> None:
    completions, references = step(data, prompts=CLIENTS * REQUESTS * ITEMS // 8)
    svgs = [s for s in (extract_svg(c).svg for c in completions) if s]
    svgs += list(dict.fromkeys(references))
    with Renderer(2) as renderer:
        render_many(renderer, svgs[:16], RenderSpec.square(128))
        started = time.perf_counter()
        render_many(renderer, svgs, RenderSpec.square(128))
        print(f"  floor: {len(svgs)} renders at 128 px, 2 workers, in process: "
              f"{time.perf_counter() - started:5.2f} s")


def memory(src: Path, data: Path) -> None:
    answers = [p.read_text() for p in sorted(data.glob("*/answer/*.svg"))]
    marked = [answers[k % len(answers)].replace(
        "</svg>", f'<rect x="{k % 36}" y="{k // 36 % 36}" width="1" height="1"/></svg>', 1)
        for k in range(5000)]
    with serve_rewards(*SERVER, env={"PYTHONPATH": str(src)}) as served:
        httpx.post(f"{served.url}/rewards", json={"items": items(marked[:8], marked[:8])},
                   timeout=600).raise_for_status()
        before = status_mib(served, "VmRSS")
        with httpx.Client(timeout=600) as http:
            for start in range(0, len(marked), 500):
                chunk = marked[start:start + 500]
                http.post(f"{served.url}/rewards", json={"items": items(chunk, chunk)}
                          ).raise_for_status()
        after = status_mib(served, "VmRSS")
    print(f"  {len(set(marked))} references: RSS {before:6.1f} -> {after:6.1f} MiB "
          f"(+{after - before:.1f})")


def body(src: Path) -> None:
    size = 600 * 1000 * 1000
    head, tail = b'{"items": [{"task": "edit", "reference": "x", "completion": "', b'"}]}'

    def chunks() -> Iterator[bytes]:
        yield head
        left = size - len(head) - len(tail)
        while left > 0:
            yield b"x" * min(MIB, left)
            left -= MIB
        yield tail

    with serve_rewards(*SERVER, env={"PYTHONPATH": str(src)}) as served:
        before = status_mib(served, "VmHWM")
        started = time.perf_counter()
        try:
            answer = httpx.post(f"{served.url}/rewards", content=chunks(), timeout=600,
                                headers={"content-length": str(size),
                                         "content-type": "application/json"})
            outcome = str(answer.status_code)
        except httpx.HTTPError as error:
            outcome = f"{type(error).__name__}"
        seconds = time.perf_counter() - started
        peak = status_mib(served, "VmHWM")
    print(f"  600 MB body: {outcome} after {seconds:5.2f} s; server peak RSS {before:6.1f} -> "
          f"{peak:6.1f} MiB")


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--src", type=Path, action="append", default=[],
                        help="svgeval source folder the server runs from (repeatable)")
    parser.add_argument("--sections", nargs="+", default=["latency", "memory", "body"],
                        choices=["latency", "memory", "body"])


def main() -> None:
    args = svgeditbench_arguments(__doc__, options)
    sources = [p.resolve() for p in args.src] or [Path(__file__).resolve().parents[1] / "src"]
    print(f"load average at start: {os.getloadavg()[0]:.1f}")
    runs: dict[str, Callable[[Path], None]] = {
        "latency": lambda src: latency(src, args.data),
        "memory": lambda src: memory(src, args.data),
        "body": body,
    }
    if "latency" in args.sections:
        render_floor(args.data)
    for section in args.sections:
        for src in sources:
            print(f"{section}, server from {src}:")
            runs[section](src)


if __name__ == "__main__":
    main()

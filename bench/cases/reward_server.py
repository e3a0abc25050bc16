"""``svgeval serve-rewards`` as a separate process under several clients: latency, memory, body.

    python -m bench reward-server [--data ../shared/data/svgeditbench]
        [--set src=SRC] [--set sections=latency,memory,body]

``src`` is the svgeval source folder (``src`` of a checkout) the server runs from (this
checkout's by default), so that two commits can be measured one after the other. The server
runs ``--preset fast --workers 2`` (pixel, edge, length: no neural term, so renders dominate).

* latency: 8 clients each send 10 requests of 100 items, one after another (8,000 items: the
  GRPO step's rollout mix, :mod:`bench.grpo_step`, over 1,000 SVGEditBench prompts); each
  request's latency, p50 / p95 / max over the 80, the wall time, and the CPU time of the server
  process and of its render workers (those alive at the end: a worker killed at its time limit
  takes its time along). Then the same with one completion of client 0's fourth request
  replaced by a 1.9 MB path (CairoSVG takes about a minute to fill it; it reaches the 10 s
  render limit twice: in its chunk, then alone). The floor of the wall time: the same renders
  (every completion with an SVG, each distinct reference once) drawn safely at 128 px in two
  warm processes (the server's two workers; :func:`bench.floors.safe_render_seconds`), with no
  server, no HTTP, no isolation and no scoring.
* memory: 5,000 distinct references (SVGEditBench answers, each with a 1 px mark of its own), in
  10 requests of 500 items (completion = reference); the server's resident memory after, against
  before (after one warm-up request).
* body: one request whose body declares 600 MB and streams it (a JSON item whose completion is
  600 MB of text); the status, the seconds until the answer, and the server's peak memory
  against its peak before.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from bench.floors import safe_render_seconds
from bench.grpo_step import step
from bench.measure import REPOSITORY, Figures, Scale, load, svgeditbench, test_helpers

if TYPE_CHECKING:
    from rewards.served import Served

CLIENTS, REQUESTS, ITEMS = 8, 10, 100
SIZE = 128
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
    import httpx

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


def serving(src: Path) -> AbstractContextManager[Served]:
    """The server (:data:`SERVER`) run from ``src``, as the reward tests run it."""
    test_helpers()
    from rewards.served import serve_rewards

    served: AbstractContextManager[Served] = serve_rewards(*SERVER,
                                                           env={"PYTHONPATH": str(src)})
    return served


def latency(src: Path, data: Path, figures: Figures, clients_: int, requests: int,
            size: int, long_path: bool) -> None:
    """The latency section (module doc), its floor measured first."""
    import httpx

    from svgeval.svg.extract import extract_svg

    test_helpers()
    from rewards.cases import long_path_svg

    completions, references = step(data, prompts=clients_ * requests * size // 8)
    svgs = [s for s in (extract_svg(c).svg for c in completions) if s]
    svgs += list(dict.fromkeys(references))
    floor = safe_render_seconds("cairosvg", svgs, SIZE, processes=2)
    where = f"safe render of {len(svgs)} SVGs at {SIZE} px, 2 warm processes"
    all_items = items(completions, references)
    per_request = [all_items[i:i + size] for i in range(0, len(all_items), size)]
    clean = [per_request[c::clients_] for c in range(clients_)]
    cases = {"clean": clean}
    if long_path:
        slow = [list(own) for own in clean]
        slow[0][3] = [{**slow[0][3][0], "completion": long_path_svg()}, *slow[0][3][1:]]
        cases["one 1.9 MB path"] = slow
    for name, sent in cases.items():
        with serving(src) as served:
            httpx.post(f"{served.url}/rewards", json={"items": per_request[0][:16]},
                       timeout=600).raise_for_status()  # workers started
            workers = served.render_workers()
            server_cpu, workers_cpu = cpu_seconds([served.process.pid]), cpu_seconds(workers)
            seconds, wall = clients(served.url, sent)
            server_cpu = cpu_seconds([served.process.pid]) - server_cpu
            workers_cpu = cpu_seconds(served.render_workers()) - workers_cpu
        p50, p95 = np.percentile(seconds, [50, 95])
        figures.add(f"latency, {name}: wall for {len(all_items)} items", wall, "s", floor, where)
        figures.note(f"latency, {name}: p50 {p50:.2f} s, p95 {p95:.2f} s, max "
                     f"{max(seconds):.2f} s; CPU: server {server_cpu:.1f} s, render workers "
                     f"{workers_cpu:.1f} s")


def memory(src: Path, data: Path, figures: Figures, references: int) -> None:
    """The memory section (module doc)."""
    import httpx

    answers = [p.read_text() for p in sorted(data.glob("*/answer/*.svg"))]
    marked = [answers[k % len(answers)].replace(
        "</svg>", f'<rect x="{k % 36}" y="{k // 36 % 36}" width="1" height="1"/></svg>', 1)
        for k in range(references)]
    chunk_size = max(1, references // 10)
    with serving(src) as served:
        httpx.post(f"{served.url}/rewards", json={"items": items(marked[:8], marked[:8])},
                   timeout=600).raise_for_status()
        before = status_mib(served, "VmRSS")
        with httpx.Client(timeout=600) as http:
            for start in range(0, len(marked), chunk_size):
                chunk = marked[start:start + chunk_size]
                http.post(f"{served.url}/rewards", json={"items": items(chunk, chunk)}
                          ).raise_for_status()
        after = status_mib(served, "VmRSS")
    figures.add(f"memory: server RSS after {len(set(marked))} references", after, "MiB", before,
                "its RSS after one warm-up request")


def body(src: Path, figures: Figures, size: int) -> None:
    """The body section (module doc), with a body of ``size`` bytes."""
    import httpx

    head, tail = b'{"items": [{"task": "edit", "reference": "x", "completion": "', b'"}]}'

    def chunks() -> Iterator[bytes]:
        yield head
        left = size - len(head) - len(tail)
        while left > 0:
            yield b"x" * min(MIB, left)
            left -= MIB
        yield tail

    with serving(src) as served:
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
    figures.add(f"body: server peak RSS after a {size / 1e6:g} MB body", peak, "MiB", before,
                "its peak before")
    figures.note(f"body of {size / 1e6:g} MB: {outcome} after {seconds:.2f} s")


def run(scale: Scale) -> Figures:
    src = Path(scale.pick("src", str(REPOSITORY / "src"), str(REPOSITORY / "src"))).resolve()
    sections = scale.pick("sections", "latency,memory,body", "latency,memory,body").split(",")
    data = svgeditbench(scale)
    figures = Figures()
    figures.note(f"server from {src}; load average {load()} at the start")
    sections_run: dict[str, Any] = {
        "latency": lambda: latency(src, data, figures, scale.pick("clients", CLIENTS, 2),
                                   scale.pick("requests", REQUESTS, 2),
                                   scale.pick("items", ITEMS, 8), not scale.smoke),
        "memory": lambda: memory(src, data, figures, scale.pick("references", 5000, 40)),
        "body": lambda: body(src, figures, scale.pick("body_bytes", 600 * 1000 * 1000,
                                                      20 * 1000 * 1000)),
    }
    for section in sections:
        sections_run[section]()
    return figures

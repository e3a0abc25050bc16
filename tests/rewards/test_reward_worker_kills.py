"""Killing render workers (SIGKILL of a real worker process, as the OOM killer does) during
reward scoring, in process and through the real ``svgeval serve-rewards`` server, changes no
reward: every valid completion keeps its score, and the server keeps answering."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from cases import INVALID, REFERENCE, UNRELATED, house
from support.worker_processes import alive, idle, render_workers, wait_for

from svgeval.rewards import RewardScorer

pytestmark = pytest.mark.e2e  # see the marker in pyproject.toml

ITEMS = 3000


def completions(n: int) -> list[str]:
    """``n`` completions: references, perturbed houses of several kinds, unrelated, invalid."""
    kinds = [REFERENCE, UNRELATED, *INVALID.values()]
    kinds += [house(dx=dx, roof=roof) for dx in range(1, 6) for roof in ("#a52a2a", "#b22222")]
    return [kinds[i % len(kinds)] for i in range(n)]


def kill_workers(owner: int, known: set[int], idle_only: bool, count: int,
                 still_going: Callable[[], bool]) -> int:
    """SIGKILL ``count`` render workers of ``owner`` not in ``known`` (only idle ones if
    ``idle_only``, else whichever there is, drawing or between two drawings), one at a time
    while ``still_going()``; returns how many were killed."""
    killed = 0
    chosen: list[int] = []

    def ready() -> bool:  # what one look finds is kept: the next look may differ
        chosen[:] = [p for p in render_workers(owner) if p not in known
                     and (idle(p) or not idle_only)][:1]
        return bool(chosen)

    for _ in range(4 * count):
        if killed == count:
            break
        chosen.clear()
        if not wait_for(lambda: ready() or not still_going(), 60) or not still_going():
            break
        victim = chosen[0]
        known.add(victim)
        try:
            os.kill(victim, signal.SIGKILL)
        except ProcessLookupError:  # it ended between the look and the kill: look again
            continue
        assert wait_for(lambda victim=victim: not alive(victim), 10)  # type: ignore[misc]
        if idle_only:
            time.sleep(0.5)  # pebble (polling every 0.1 s) sees it die while nothing runs
        killed += 1
    return killed


def test_killing_render_workers_during_in_process_scoring_changes_no_reward() -> None:
    batch = completions(1000)
    references = [REFERENCE] * len(batch)
    with RewardScorer("fast", workers=2) as undisturbed:
        expected = undisturbed.score(batch, references)
    known = set(render_workers())
    with RewardScorer("fast", workers=2) as scorer:
        assert scorer.score(batch[:8], references[:8]) == expected[:8]
        kill_workers(os.getpid(), known, idle_only=True, count=1, still_going=lambda: True)
        scored: dict[str, Any] = {}
        scoring = threading.Thread(target=lambda: scored.update(results=scorer.score(
            batch, references)))
        scoring.start()
        killed = kill_workers(os.getpid(), known, idle_only=False, count=2,
                              still_going=scoring.is_alive)
        scoring.join()
    assert killed == 2  # both while the 1,000 items were being scored
    assert scored["results"] == expected


@pytest.fixture()
def reward_server() -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """``svgeval serve-rewards`` (FastAPI under uvicorn) on 127.0.0.1, two render workers."""
    pytest.importorskip("uvicorn")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "svgeval", "serve-rewards", "--port", str(port),
         "--workers", "2", "--preset", "fast"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    base = f"http://127.0.0.1:{port}"

    def up() -> bool:
        try:
            return httpx.get(f"{base}/health", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    try:
        assert wait_for(up, 60, step_s=0.1), server.stderr
        yield base, server
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


def test_killing_render_workers_of_the_reward_server_changes_no_reward(
    reward_server: tuple[str, subprocess.Popen[str]]
) -> None:
    base, server = reward_server
    body = {"items": [{"prompt": "p", "completion": completion, "reference": REFERENCE,
                       "task": "fast"} for completion in completions(ITEMS)]}
    with httpx.Client(timeout=600) as client:
        expected = client.post(f"{base}/rewards", json=body).json()
        assert expected["failures"].count("crash") == 0
        known: set[int] = set()
        # an idle worker of an idle server: pebble's pool broke for good, every later request
        # was answered -1 with failure "crash"
        assert kill_workers(server.pid, known, idle_only=True, count=1, still_going=lambda: True)
        assert client.post(f"{base}/rewards", json=body).json() == expected
        answer: dict[str, Any] = {}
        request = threading.Thread(target=lambda: answer.update(
            client.post(f"{base}/rewards", json=body).json()))
        request.start()
        killed = kill_workers(server.pid, known, idle_only=False, count=2,
                              still_going=request.is_alive)
        request.join()
    assert killed == 2  # both during the 3,000-item request
    assert answer == expected

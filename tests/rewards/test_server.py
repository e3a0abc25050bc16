"""The reward server on loopback: batch scoring, health, and a bounded queue under load."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import httpx
import pytest
from cases import PERTURBED, REFERENCE, UNRELATED

pytest.importorskip("fastapi")
uvicorn = pytest.importorskip("uvicorn")

from svgeval.rewards import RewardResult, RewardScorer
from svgeval.rewards.server import create_app
from svgeval.svg.isolation import Renderer

Score = Callable[[Sequence[str], Sequence[str], Sequence[str | None]], list[RewardResult]]


@contextmanager
def serve(score: Score, max_queue: int) -> Iterator[str]:
    """Serve on 127.0.0.1 with a socket bound and listening before the server thread starts,
    so clients connect at once (the backlog holds them until uvicorn accepts)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    config = uvicorn.Config(create_app(score, max_queue=max_queue), log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


@pytest.fixture()
def scorer(renderer: Renderer) -> Iterator[RewardScorer]:
    with RewardScorer("by_task", weights={"lpips": 0.0}, renderer=renderer) as reward_scorer:
        yield reward_scorer


def item(completion: str, task: str = "edit") -> dict[str, str]:
    return {"prompt": "p", "completion": completion, "reference": REFERENCE, "task": task}


def test_batch_endpoint_and_health(scorer: RewardScorer) -> None:
    with serve(scorer.score, max_queue=64) as base:
        body = {"items": [item(REFERENCE), item(PERTURBED), item("none"),
                          item("a house", "captioning-rouge")]}
        answer = httpx.post(f"{base}/rewards", json=body, timeout=60).json()
        assert answer["rewards"][0] == pytest.approx(1.0)
        assert answer["rewards"][0] > answer["rewards"][1] > answer["rewards"][2] == -1.0
        assert set(answer["components"][1]) == {"pixel", "edge", "length"}
        assert answer["failures"][2] == "no_svg"
        assert httpx.get(f"{base}/health").json() == {"status": "ok", "pending": 0,
                                                      "max_queue": 64}
        assert httpx.post(f"{base}/rewards", json={"items": [item("x")] * 65}).status_code == 413


def test_overload_answers_503_with_retry_after() -> None:
    entered, release = threading.Event(), threading.Event()

    def blocked(completions: Sequence[str], refs: Sequence[str],
                tasks: Sequence[str | None]) -> list[RewardResult]:
        entered.set()
        release.wait(timeout=60)
        return [RewardResult(0.5) for _ in completions]

    with serve(blocked, max_queue=4) as base, ThreadPoolExecutor(1) as pool:
        first = pool.submit(httpx.post, f"{base}/rewards",
                            json={"items": [item("x")] * 3}, timeout=60)
        assert entered.wait(timeout=30)
        refused = httpx.post(f"{base}/rewards", json={"items": [item("x")] * 2})
        assert refused.status_code == 503 and refused.headers["retry-after"] == "1"
        assert httpx.get(f"{base}/health").json()["pending"] == 3
        release.set()
        assert first.result().json()["rewards"] == [0.5] * 3


def test_load_on_loopback_stays_bounded(scorer: RewardScorer) -> None:
    """24 concurrent requests of 8 items against a queue of 32: every answer is a full result
    or a 503, and nothing is left pending."""
    with serve(scorer.score, max_queue=32) as base:
        body = {"items": [item(c) for c in (REFERENCE, PERTURBED, UNRELATED, "x")] * 2}
        with httpx.Client(timeout=120) as client, ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(lambda _: client.post(f"{base}/rewards", json=body),
                                    range(24)))
            assert {a.status_code for a in answers} <= {200, 503}
            ok = [a.json()["rewards"] for a in answers if a.status_code == 200]
            assert ok and all(r == ok[0] for r in ok) and len(ok[0]) == 8
            assert client.get(f"{base}/health").json()["pending"] == 0

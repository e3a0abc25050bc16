"""The reward server on loopback (uvicorn in a thread): batch scoring, health, a bounded queue,
fair scheduling. What depends on HTTP itself is checked against the real command in
test_server_process.py."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import httpx
import pytest
from cases import PERTURBED, REFERENCE, UNRELATED

pytest.importorskip("fastapi")
uvicorn = pytest.importorskip("uvicorn")

from svgeval.render.isolated import Renderer
from svgeval.rewards import RewardResult, RewardScorer
from svgeval.rewards.fair import FairScorer
from svgeval.rewards.presets import RewardPreset, get_reward_preset
from svgeval.rewards.server import RewardBackend, ServerSettings, create_app


@contextmanager
def serve(backend: RewardBackend, **settings: int) -> Iterator[str]:
    """Serve on 127.0.0.1 with a socket bound and listening before the server thread starts,
    so clients connect at once (the backlog holds them until uvicorn accepts)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    config = uvicorn.Config(create_app(backend, ServerSettings(**settings)), log_level="warning")
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


class Blocked:
    """A backend whose scoring waits for ``release``; scores every item 0.5."""

    def __init__(self) -> None:
        self.entered, self.release = threading.Event(), threading.Event()

    def score(self, completions: Sequence[str], references: Sequence[str],
              tasks: Sequence[str | None] | None = None) -> list[RewardResult]:
        self.entered.set()
        self.release.wait(timeout=60)
        return [RewardResult(0.5) for _ in completions]

    def preset_for(self, task: str | None) -> RewardPreset:
        return get_reward_preset("fast")

    def check_render(self) -> str | None:
        return None


def test_batch_endpoint_and_health(scorer: RewardScorer) -> None:
    with serve(scorer, max_queue=64) as base:
        body = {"items": [item(REFERENCE), item(PERTURBED), item("none"),
                          item("a house", "captioning-rouge")]}
        answer = httpx.post(f"{base}/rewards", json=body, timeout=60).json()
        assert answer["rewards"][0] == pytest.approx(1.0)
        assert answer["rewards"][0] > answer["rewards"][1] > answer["rewards"][2] == -1.0
        assert set(answer["components"][1]) == {"pixel", "sobel", "length"}
        assert answer["failures"][2] == "no_svg"
        health = httpx.get(f"{base}/health", timeout=60).json()
        assert health["status"] == "ok" and health["pending"] == 0 and health["max_queue"] == 64
        too_many = httpx.post(f"{base}/rewards", json={"items": [item("x")] * 65}, timeout=60)
        assert too_many.status_code == 413 and "at most 64" in too_many.json()["detail"]


def test_health_is_unavailable_when_the_workers_cannot_render() -> None:
    """The pool is shut (as after its workers are gone): /health answers 503 with the reason,
    instead of ok while every reward would be a crash penalty."""
    with RewardScorer("fast", workers=1) as scorer, serve(scorer) as base:
        assert httpx.get(f"{base}/health", timeout=60).status_code == 200
        scorer.renderer.close()
        health = httpx.get(f"{base}/health", timeout=60)
        assert health.status_code == 503
        assert health.json()["status"] == "unavailable"
        assert "render workers cannot render" in health.json()["detail"]


def test_overload_answers_503_with_retry_after() -> None:
    backend = Blocked()
    with serve(backend, max_queue=4) as base, ThreadPoolExecutor(1) as pool:
        first = pool.submit(httpx.post, f"{base}/rewards",
                            json={"items": [item("x")] * 3}, timeout=60)
        assert backend.entered.wait(timeout=30)
        refused = httpx.post(f"{base}/rewards", json={"items": [item("x")] * 2})
        assert refused.status_code == 503 and refused.headers["retry-after"] == "1"
        assert httpx.get(f"{base}/health").json()["pending"] == 3
        backend.release.set()
        assert first.result().json()["rewards"] == [0.5] * 3


def test_load_on_loopback_stays_bounded(scorer: RewardScorer) -> None:
    """24 concurrent requests of 8 items against a queue of 32: every answer is a full result
    or a 503, and nothing is left pending."""
    with serve(scorer, max_queue=32) as base:
        body = {"items": [item(c) for c in (REFERENCE, PERTURBED, UNRELATED, "x")] * 2}
        with httpx.Client(timeout=120) as client, ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(lambda _: client.post(f"{base}/rewards", json=body),
                                    range(24)))
            assert {a.status_code for a in answers} <= {200, 503}
            ok = [a.json()["rewards"] for a in answers if a.status_code == 200]
            assert ok and all(r == ok[0] for r in ok) and len(ok[0]) == 8
            assert client.get(f"{base}/health").json()["pending"] == 0


def test_pieces_are_scored_round_robin_over_requests() -> None:
    """One thread, pieces of 2 items: while the first piece of request A (8 items) is scored,
    B (2 items) arrives behind A's next piece; B's only piece goes after that one, before the
    rest of A (round-robin, instead of after the whole of A)."""
    order: list[str] = []
    first_piece, go_on = threading.Event(), threading.Event()

    def score(completions: Sequence[str], references: Sequence[str],
              tasks: Sequence[str | None]) -> list[RewardResult]:
        order.append(completions[0])
        first_piece.set()
        go_on.wait(timeout=30)
        return [RewardResult(float(len(c))) for c in completions]

    async def both() -> tuple[list[RewardResult], list[RewardResult]]:
        fair = FairScorer(score, threads=1, piece_items=2)
        a = asyncio.ensure_future(fair.score([f"a{i}" for i in range(8)], ["r"] * 8, [None] * 8))
        await asyncio.to_thread(first_piece.wait, 30)
        b = asyncio.ensure_future(fair.score(["b0", "b11"], ["r"] * 2, [None] * 2))
        await asyncio.sleep(0.05)
        go_on.set()
        results = await asyncio.gather(a, b)
        await asyncio.to_thread(fair.close)
        return results

    a_results, b_results = asyncio.run(both())
    assert order == ["a0", "a2", "b0", "a4", "a6"]
    assert [r.reward for r in a_results] == [2.0] * 8
    assert [r.reward for r in b_results] == [2.0, 3.0]


def test_a_failing_piece_fails_its_request_only() -> None:
    def score(completions: Sequence[str], references: Sequence[str],
              tasks: Sequence[str | None]) -> list[RewardResult]:
        if "boom" in completions:
            raise RuntimeError("boom")
        return [RewardResult(1.0) for _ in completions]

    async def both() -> tuple[BaseException | list[RewardResult], ...]:
        fair = FairScorer(score, threads=2, piece_items=1)
        results = await asyncio.gather(fair.score(["x", "boom", "y"], ["r"] * 3, [None] * 3),
                                       fair.score(["z"] * 3, ["r"] * 3, [None] * 3),
                                       return_exceptions=True)
        await asyncio.to_thread(fair.close)
        return tuple(results)

    failed, fine = asyncio.run(both())
    assert isinstance(failed, RuntimeError)
    assert isinstance(fine, list) and [r.reward for r in fine] == [1.0] * 3

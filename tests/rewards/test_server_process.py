"""``svgeval serve-rewards`` as a separate process on 127.0.0.1, driven over real HTTP: client
mistakes get a 4xx and a JSON reason, the request body is capped, a slow completion does not
hold other clients, and /health tells the truth about rendering."""

from __future__ import annotations

import http.client
import json
import os
import signal
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from cases import PERTURBED, REFERENCE, long_path_svg
from served import Served, serve_rewards

pytestmark = pytest.mark.e2e  # see the marker in pyproject.toml

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

MIB = 1024 * 1024


def item(completion: str = REFERENCE, task: str | None = "edit") -> dict[str, str]:
    out = {"prompt": "p", "completion": completion, "reference": REFERENCE}
    return out if task is None else {**out, "task": task}


@pytest.fixture(scope="module")
def by_task() -> Iterator[Served]:
    """The default preset (by_task), two workers, a 3 s render limit."""
    with serve_rewards("--workers", "2", "--timeout-s", "3") as served:
        yield served


VALID = json.dumps({"items": [item()]})
MISTAKES = {
    "unknown task": (json.dumps({"items": [item(), item(task="nope")]}),
                     "items[1].task: unknown task 'nope'"),
    "missing task": (json.dumps({"items": [item(task=None)]}), "items[0].task: missing"),
    "NaN for text": ('{"items": [{"completion": NaN, "reference": "x", "task": "edit"}]}',
                     "items[0].completion"),
    "NaN for the task": ('{"items": [{"completion": "x", "reference": "x", "task": NaN}]}',
                         "items[0].task"),
    "misspelled items": (VALID.replace('"items"', '"itmes"'), "itmes: unknown field"),
    "misspelled item field": (VALID.replace('"completion"', '"completions"'),
                              "items[0].completions: unknown field"),
    "items not a list": ('{"items": "x"}', "items"),
    "not JSON": ('{"items": [', "not valid JSON"),
}


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_client_mistakes_get_422_with_a_json_reason(by_task: Served, mistake: str) -> None:
    body, expected = MISTAKES[mistake]
    answer = httpx.post(f"{by_task.url}/rewards", content=body,
                        headers={"content-type": "application/json"}, timeout=120)
    assert answer.status_code == 422, answer.text
    detail = answer.json()["detail"]
    assert isinstance(detail, str) and "\n" not in detail and expected in detail
    assert REFERENCE not in answer.text  # the values sent are not echoed
    after = httpx.post(f"{by_task.url}/rewards", content=VALID, timeout=120)  # no Content-Type
    assert after.status_code == 200 and after.json()["rewards"] == [pytest.approx(1.0)]


def test_a_slow_completion_does_not_hold_other_clients(by_task: Served) -> None:
    """Client A sends a 1.9 MB path (it hits the 3 s render limit twice: in its chunk, then
    alone); client B, 0.5 s later, gets its 8 rewards without waiting for A."""
    slow = {"items": [item(long_path_svg())] + [item(PERTURBED)] * 7}
    quick = {"items": [item(PERTURBED)] * 8}
    with httpx.Client(timeout=120) as client, ThreadPoolExecutor(1) as pool:
        started = time.perf_counter()
        first = pool.submit(client.post, f"{by_task.url}/rewards", json=slow)
        time.sleep(0.5)
        second = client.post(f"{by_task.url}/rewards", json=quick)
        quick_s = time.perf_counter() - started - 0.5
        slow_answer = first.result()
        slow_s = time.perf_counter() - started
    assert second.status_code == 200 and len(second.json()["rewards"]) == 8
    assert slow_answer.json()["failures"][0] == "timeout" and slow_s >= 3.0
    assert quick_s < 2.5, f"B waited {quick_s:.1f} s behind A ({slow_s:.1f} s)"


@pytest.fixture(scope="module")
def fast_server() -> Iterator[Served]:
    with serve_rewards("--preset", "fast", "--workers", "1") as served:
        yield served


def test_a_body_declared_too_large_is_refused_before_it_is_sent(fast_server: Served) -> None:
    """A request declaring 600 MB gets 413 at once, while its body has not been sent."""
    address = urlsplit(fast_server.url)
    connection = http.client.HTTPConnection(address.hostname or "", address.port, timeout=15)
    connection.putrequest("POST", "/rewards")
    connection.putheader("Content-Type", "application/json")
    connection.putheader("Content-Length", "600000000")
    connection.endheaders()  # the headers only: not a byte of the body
    answer = connection.getresponse()
    assert answer.status == 413
    assert json.loads(answer.read())["detail"].startswith("request body too large")
    connection.close()


def test_a_streamed_body_is_cut_off_at_the_limit(fast_server: Served) -> None:
    """160 MiB sent without a Content-Length (chunked) against the default 64 MiB limit: 413,
    and the server's peak memory grows by less than twice the limit (the body, once)."""
    def chunks() -> Iterator[bytes]:
        yield b'{"items": [{"completion": "'
        for _ in range(160):
            yield b"x" * MIB
        yield b'", "reference": "x"}]}'

    peak_before = peak_mib(fast_server)
    answer = httpx.post(f"{fast_server.url}/rewards", content=chunks(),
                        headers={"content-type": "application/json"}, timeout=120)
    assert answer.status_code == 413 and "too large" in answer.json()["detail"]
    assert peak_mib(fast_server) - peak_before < 128
    assert httpx.post(f"{fast_server.url}/rewards", content=VALID, timeout=60).status_code == 200


def peak_mib(served: Served) -> float:
    status = Path(f"/proc/{served.process.pid}/status").read_text()
    kib = next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:"))
    return int(kib) / 1024


def test_the_body_limit_is_configurable() -> None:
    with serve_rewards("--preset", "fast", "--workers", "1", "--max-body-mb", "1") as served:
        small = {"items": [item()] * 200}  # 0.2 MB
        large = {"items": [item()] * 2000}  # 2 MB
        assert httpx.post(f"{served.url}/rewards", json=small, timeout=120).status_code == 200
        refused = httpx.post(f"{served.url}/rewards", json=large, timeout=120)
        assert refused.status_code == 413 and "1048576 bytes" in refused.json()["detail"]


def test_health_says_ok_only_when_rewards_render() -> None:
    """An idle render worker killed with SIGKILL (as the OOM killer would): /health answers 200
    exactly when a reward is still computed, never ok while every reward is a crash."""
    with serve_rewards("--preset", "fast", "--workers", "2") as served:
        warm = httpx.post(f"{served.url}/rewards", json={"items": [item()]}, timeout=60).json()
        assert warm["failures"] == [None]
        assert httpx.get(f"{served.url}/health", timeout=60).json()["status"] == "ok"
        workers = served.render_workers()
        assert workers, "no render worker found"
        os.kill(workers[0], signal.SIGKILL)
        deadline = time.monotonic() + 10
        while Path(f"/proc/{workers[0]}").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)
        health = httpx.get(f"{served.url}/health", timeout=60)
        answer = httpx.post(f"{served.url}/rewards", json={"items": [item()]}, timeout=60).json()
        renders = answer["failures"] == [None]
        assert (health.status_code == 200) == renders, (health.text, answer)
        if not renders:
            assert health.json()["status"] == "unavailable"

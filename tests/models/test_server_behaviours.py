"""The HTTP backend against servers that behave as real ones do, each in its own process.

A gateway that ignores ``"stream": true``, llama-cpp-python's interrupt-on-new-request,
``python -m http.server``'s 501 to every POST, a backend that is down behind its proxy, a server
that echoes credentials in its errors, and half an emoji (see ``tests/support/local_servers.py``).
"""

from __future__ import annotations

import asyncio
import base64
import threading
import time
from collections import Counter
from pathlib import Path

import httpx
import pytest
from support.local_servers import HALF_EMOJI_SVG, http_server, read_log, running

from svgeval.models import Generation, ModelError, ModelEvents, ModelUnavailable, RetryPolicy

from .backend_helpers import SVG, ask, generate_all, generate_one, make_model

pytestmark = pytest.mark.e2e  # see the marker in pyproject.toml

LONG_SVG = "<svg>" + "<rect/>" * 60 + "</svg>"
"""An answer of about 60 tokens (2 ms each): long enough that requests sent together overlap."""


def test_a_server_that_ignores_stream_is_read_from_its_json_answer() -> None:
    with running("gateway") as server:
        answer = generate_one(make_model(server.base_url, stream=True))
    assert isinstance(answer, Generation), answer
    assert answer.text == f"```svg\n{SVG}\n```"
    assert answer.finish_reason == "stop" and answer.attempts == 1
    assert answer.usage == {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}


@pytest.mark.parametrize("kind", ["gateway", "interrupting"], ids=["json", "sse"])
def test_half_an_emoji_from_the_server_is_passed_through(kind: str) -> None:
    with running(kind, "--reply", "half-emoji") as server:
        answer = generate_one(make_model(server.base_url))
    assert isinstance(answer, Generation), answer
    assert answer.text == f"```svg\n{HALF_EMOJI_SVG}\n```" and "\ud83d" in answer.text


def test_http_server_answering_501_is_unavailable_at_once(tmp_path: Path) -> None:
    with http_server(tmp_path) as server:
        started = time.monotonic()
        error = generate_one(make_model(server.base_url, retry=RetryPolicy()))
        elapsed = time.monotonic() - started
    assert isinstance(error, ModelUnavailable)
    assert str(error) == (
        f"openai-compatible:fake-model: HTTP 501 from {server.base_url}/chat/completions: "
        "Unsupported method ('POST'); the server takes no chat requests there: check that "
        "--base-url is the API root of a Chat Completions server (often ending in /v1)"
    )
    assert elapsed < 5.0  # the default retries would take about a minute


def test_a_backend_that_was_never_up_stops_after_four_attempts() -> None:
    with running("gateway", "--always", "502") as server:
        started = time.monotonic()
        requests = [ask(f"s{i}", f"Sample {i}: {SVG}") for i in range(3)]
        model = make_model(server.base_url, concurrency=1, retry=RetryPolicy(base_delay_s=0.05))
        outcomes = generate_all(model, requests)
        elapsed = time.monotonic() - started
    unavailable = [str(o) for o in outcomes if isinstance(o, ModelUnavailable)]
    assert (  # the request whose attempt was the fourth (the runner stops there)
        f"openai-compatible:fake-model: {server.base_url}/chat/completions answered each of the "
        "first 4 attempts with HTTP 502 and has answered no request yet (HTTP 502: Bad Gateway); "
        "check that the server behind --base-url is up, and its log"
    ) in unavailable
    assert elapsed < 5.0


def test_server_errors_after_an_answer_are_retried_as_before() -> None:
    with running("gateway", "--fail-every", "2") as server:  # calls 2, 4, 6... fail
        requests = [ask(f"s{i}", f"Sample {i}: {SVG}") for i in range(4)]
        answers = generate_all(make_model(server.base_url, concurrency=1), requests)
    assert all(isinstance(answer, Generation) for answer in answers), answers


def test_llama_cpp_interruptions_lower_the_requests_in_flight(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    notices: list[str] = []
    with running("interrupting", "--log", str(log)) as server:
        model = make_model(server.base_url, concurrency=8, retry=RetryPolicy(max_retries=2),
                           events=ModelEvents(notice=notices.append))
        requests = [ask(f"s{i}", f"Sample {i}: {LONG_SVG}") for i in range(12)]
        answers = generate_all(model, requests, time_limit_s=60)
    assert all(isinstance(answer, Generation) for answer in answers), answers
    assert [a.finish_reason for a in answers if isinstance(a, Generation)] == ["stop"] * 12
    calls = read_log(log)
    completed = Counter(call["prompt"] for call in calls if call["outcome"] == "completed")
    assert len(completed) == 12 and set(completed.values()) == {1}
    interrupted = [call for call in calls if call["outcome"] == "interrupted"]
    assert interrupted  # the first ones, sent together, cut each other short
    assert len(notices) == 1 and "cut answers short or refused them under load" in notices[0]
    report = model.report()["concurrency"]
    assert report["asked"] == 8 and report["lowest"] < 8 and report["cuts"] >= 1


def test_a_cut_stream_is_cut_even_when_the_request_it_made_room_for_ends_first(
    tmp_path: Path,
) -> None:
    """The cut stream's body ends 0.5 s after its ``[DONE]``; the request it made room for is
    answered in that time, so nothing else is in flight when the body ends. Main of 2026-12-01
    looked then, and took the cut answer as whole (a CI run recorded half an answer)."""
    log = tmp_path / "calls.jsonl"
    with running("interrupting", "--log", str(log), "--linger-after-cut", "0.5") as server:
        model = make_model(server.base_url, concurrency=2, retry=RetryPolicy(max_retries=0))
        requests = [ask(f"s{i}", f"Sample {i}: {LONG_SVG}") for i in range(2)]
        answers = generate_all(model, requests, time_limit_s=60)
    assert [a.finish_reason if isinstance(a, Generation) else a for a in answers] == ["stop"] * 2
    assert all(LONG_SVG in a.text for a in answers if isinstance(a, Generation))
    outcomes = Counter(call["outcome"] for call in read_log(log))
    assert outcomes["completed"] == 2 and outcomes["interrupted"] >= 1, outcomes


def test_a_stream_cut_for_another_client_is_asked_again(tmp_path: Path) -> None:
    """Our one request is mid-answer when another client's arrives: llama-cpp-python's server
    cuts ours ([DONE], no finish reason). Main of 2026-12-02 recorded the cut text as the
    model's answer (issue 43, defect 8: reproduced with one curl into a one-request run)."""
    log = tmp_path / "calls.jsonl"
    with running("interrupting", "--log", str(log), "--token-delay", "0.02") as server:
        def another_client() -> None:
            time.sleep(0.3)  # our answer takes about 1.1 s (54 tokens)
            httpx.post(f"{server.base_url}/chat/completions", timeout=30, json={
                "model": "other", "messages": [{"role": "user", "content": "another client"}]})

        other = threading.Thread(target=another_client)
        other.start()
        answer = generate_one(make_model(server.base_url, concurrency=1),
                              ask("s0", f"Sample 0: {LONG_SVG}"))
        other.join()
    assert isinstance(answer, Generation), answer
    assert answer.finish_reason == "stop" and LONG_SVG in answer.text and answer.attempts == 2
    assert sorted(call["outcome"] for call in read_log(log)) == [
        "completed", "completed", "interrupted"]


def test_alone_a_stream_is_answered_whole_at_the_first_attempt(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    with running("interrupting", "--log", str(log)) as server:
        requests = [ask(f"s{i}", f"Sample {i}: {SVG}") for i in range(3)]
        answers = generate_all(make_model(server.base_url, concurrency=1), requests)
    assert all(isinstance(a, Generation) and a.attempts == 1 for a in answers), answers
    assert [call["outcome"] for call in read_log(log)] == ["completed"] * 3


@pytest.mark.parametrize("password", ["hunter2-pw", "pw"])
def test_an_error_body_that_echoes_credentials_is_recorded_redacted(password: str) -> None:
    """The gateway quotes the path and the ``Authorization`` header httpx made of the URL's
    user and password (``Basic`` base64): neither, nor a password under 4 characters, stays."""
    with running("gateway", "--always", "400", "--echo-credentials") as server:
        url = server.base_url.replace("http://", f"http://alice:{password}@") + "?key=q-secret-77"
        model = make_model(url)
        error = generate_one(model)
    assert isinstance(error, ModelError)
    message = str(error)
    assert "/v1/chat/completions?key=***" in message  # the path was right: a 400, not a 404
    basic = base64.b64encode(f"alice:{password}".encode()).decode()
    for secret in (password, "q-secret-77", "alice", basic):
        assert secret not in message, message
    assert model.base_url == server.base_url.replace("http://", "http://***@") + "?key=***"


def test_an_error_body_that_echoes_the_api_key_is_recorded_redacted() -> None:
    with running("gateway", "--always", "400", "--echo-credentials") as server:
        error = generate_one(make_model(server.base_url, api_key="sk-live-abcdef"))
    assert isinstance(error, ModelError)
    assert "authorization Bearer ***)" in str(error) and "sk-live-abcdef" not in str(error)


def test_credentials_in_the_url_and_an_api_key_together_are_refused() -> None:
    """httpx sends the URL's basic authentication and drops the bearer key without a word (the
    gateway logged ``Basic YWxpY2U6cHc=`` with both given, main of 2026-12-02): refused before
    any request, naming both."""
    with pytest.raises(ValueError) as refused:
        make_model("http://alice:pw@127.0.0.1:9/v1", api_key="sk-live-abcdef",
                   api_key_env="MY_KEY")
    assert str(refused.value) == (
        "openai-compatible:fake-model: --base-url carries a user name and password (sent as "
        "basic authentication) and $MY_KEY holds an API key (sent as a bearer token), but a "
        "request has one Authorization header and httpx sends only the basic one: take the "
        "credentials out of --base-url or leave out --api-key-env"
    )


def test_credentials_in_the_url_reach_the_server(tmp_path: Path) -> None:
    """Basic authentication from ``user:pass@`` and the query string are both sent."""
    log = tmp_path / "calls.jsonl"
    with running("gateway", "--log", str(log)) as server:
        url = server.base_url.replace("http://", "http://alice:pw@") + "/?key=k"
        answer = generate_one(make_model(url))
    assert isinstance(answer, Generation), answer
    [call] = read_log(log)
    assert call["path"] == "/v1/chat/completions?key=k"
    assert call["authorization"] == "Basic YWxpY2U6cHc="  # alice:pw


def test_interrupted_streams_do_not_use_up_the_retries() -> None:
    """Eight requests at once on llama-cpp-python's server, no retries allowed: the cuts it
    makes to serve the others are not failures of the requests."""
    with running("interrupting") as server:
        model = make_model(server.base_url, concurrency=8, retry=RetryPolicy(max_retries=0))
        requests = [ask(f"s{i}", f"Sample {i}: {LONG_SVG}") for i in range(8)]
        answers = generate_all(model, requests, time_limit_s=60)
    assert all(isinstance(answer, Generation) for answer in answers), answers


def test_notices_are_told_once_per_backend() -> None:
    async def go() -> list[str]:
        notices: list[str] = []
        with running("interrupting") as server:
            model = make_model(server.base_url, concurrency=4,
                               events=ModelEvents(notice=notices.append))
            for round_ in range(2):
                await asyncio.gather(*(
                    model.generate(ask(f"r{round_}s{i}", f"{round_} {i} {LONG_SVG}"))
                    for i in range(4)
                ))
            await model.aclose()
        return notices

    assert len(asyncio.run(go())) == 1


def test_random_refusals_leave_the_requests_in_flight_as_asked(tmp_path: Path) -> None:
    """A gateway that refuses a tenth of its calls at random with 429 (seed 35: none of the
    first 16 calls, 8 of the first 60) while it answers 8 at once. Main of 2026-12-02 halved the
    requests in flight at each refusal and kept them low (600 samples: 139 s against 12 s)."""
    log = tmp_path / "calls.jsonl"
    options = ("--refuse", "0.1", "--seed", "35", "--delay", "0.5", "--log", str(log))
    with running("gateway", *options) as server:
        model = make_model(server.base_url, concurrency=8, retry=RetryPolicy(
            max_retries=6, base_delay_s=0.05, max_delay_s=0.2))
        requests = [ask(f"s{i}", f"Sample {i}: {SVG}") for i in range(48)]
        answers = generate_all(model, requests, time_limit_s=60)
    assert all(isinstance(answer, Generation) for answer in answers), answers
    refused = Counter(call["outcome"] for call in read_log(log))["refused"]
    assert refused >= 3
    assert model.report()["concurrency"] == {"asked": 8, "started": 8, "lowest": 8, "final": 8,
                                             "cuts": 0, "random_refusals": refused}


def test_a_saturated_server_gets_fewer_requests_at_once(tmp_path: Path) -> None:
    """A server that answers 2 at once and refuses more with 429: those refusals are overload."""
    log = tmp_path / "calls.jsonl"
    with running("gateway", "--capacity", "2", "--delay", "0.1", "--log", str(log)) as server:
        model = make_model(server.base_url, concurrency=8, retry=RetryPolicy(
            max_retries=8, base_delay_s=0.05, max_delay_s=0.2))
        requests = [ask(f"s{i}", f"Sample {i}: {SVG}") for i in range(24)]
        answers = generate_all(model, requests, time_limit_s=60)
    assert all(isinstance(answer, Generation) for answer in answers), answers
    report = model.report()["concurrency"]
    assert report["cuts"] >= 1 and report["lowest"] <= 2, report
    outcomes = Counter(call["outcome"] for call in read_log(log))
    assert outcomes["answered"] == 24 and outcomes["saturated"] >= 6  # the first 8 at once


def test_a_cut_with_two_in_flight_leaves_one(tmp_path: Path) -> None:
    """Two requests, ``--concurrency 8``: the server cuts one for the other. Main of 2026-12-02
    halved the 8 asked for (the note: "with 2 requests in flight): now 4 at a time")."""
    notices: list[str] = []
    with running("interrupting", "--token-delay", "0.02") as server:
        model = make_model(server.base_url, concurrency=8,
                           events=ModelEvents(notice=notices.append))
        requests = [ask(f"s{i}", f"Sample {i}: {LONG_SVG}") for i in range(2)]
        answers = generate_all(model, requests, time_limit_s=60)
    assert all(isinstance(answer, Generation) for answer in answers), answers
    assert len(notices) == 1
    assert "(stream interrupted with 2 requests in flight): now 1 at a time" in notices[0]
    assert model.report()["concurrency"]["lowest"] == 1


def test_a_prompt_past_the_context_of_llama_cpp_python_says_why_it_failed() -> None:
    """llama-cpp-python's server fails a prompt longer than its context inside a stream it
    began with 200, which just ends; every streamed attempt is cut off alike. Once they are
    spent, the request is asked once more without streaming, and the server's own reason ends
    up in the error (it said only "the stream ended before the answer was complete")."""
    with running("interrupting", "--max-prompt-chars", "20") as server:
        error = generate_one(make_model(server.base_url))
    assert isinstance(error, ModelError), error
    # the stream ends early, or its connection closes, as the server's tasks finish
    assert str(error).startswith("gave up after 4 streamed attempts (")
    assert (f"); asked once more without streaming: HTTP 400 from {server.base_url}/chat/"
            "completions: This model's maximum context length is 20 tokens.") in str(error)
    assert error.attempts == 5


def test_a_streamed_answer_cut_off_once_is_still_asked_streamed() -> None:
    with running("interrupting") as server:
        answer = generate_one(make_model(server.base_url))
    assert isinstance(answer, Generation) and answer.attempts == 1

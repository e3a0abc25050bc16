"""Streamed answers: slow single-slot servers, silences, cut-off answers, usage, retry notices."""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator

import pytest
from support.fake_openai_server import FakeOpenAIServer, Fault, fail_first, on_requests

from svgeval.models import Generation, ModelError, ModelEvents, RetryEvent
from svgeval.models.chat_http import _sse_data

from .backend_helpers import SVG, ask, generate_all, generate_one, make_model
from .conftest import StartServer

WORDS = " ".join(f"word{i}" for i in range(25))
"""An answer of 25 tokens (the fake server counts words)."""


def check_single_slot_server(
    tokens: int, token_delay_s: float, timeout_s: float, concurrency: int = 4
) -> None:
    """``concurrency`` requests to a one-slot server are each answered by one generation.

    The last request waits in the queue for all the others, longer than ``timeout_s``: the
    wait for its first token must not count against the idle timeout.
    """
    queue_wait_s = (concurrency - 1) * tokens * token_delay_s
    assert token_delay_s < timeout_s < queue_wait_s  # what makes the check meaningful
    answer_text = " ".join(f"word{i}" for i in range(tokens))
    requests = [ask(f"s{i}", f"Sample {i}: {SVG}") for i in range(concurrency)]
    retries: list[RetryEvent] = []
    with FakeOpenAIServer(
        reply=lambda body: answer_text, slots=1, token_delay_s=token_delay_s
    ) as server:
        model = make_model(server.base_url, concurrency=concurrency, timeout_s=timeout_s,
                           events=ModelEvents(retry=retries.append))
        answers = generate_all(model, requests, time_limit_s=10 * (queue_wait_s + 1))
        chat_requests, generations = server.chat_requests, server.generations
        abandoned = server.abandoned_generations
    assert retries == []
    assert [type(answer) for answer in answers] == [Generation] * concurrency
    assert all(isinstance(a, Generation) and a.text == answer_text for a in answers)
    assert [a.attempts for a in answers if isinstance(a, Generation)] == [1] * concurrency
    assert len(chat_requests) == len(generations) == concurrency and abandoned == []
    slowest = max(a.total_s for a in answers if isinstance(a, Generation))
    assert slowest >= 0.9 * queue_wait_s


def test_slow_single_slot_server_is_never_abandoned() -> None:
    """Scaled down: 0.5 s answers, a token every 0.02 s, a 0.4 s timeout, up to 1.5 s queued."""
    check_single_slot_server(tokens=25, token_delay_s=0.02, timeout_s=0.4)


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_slow_single_slot_server_is_never_abandoned_at_full_scale() -> None:
    """The by-hand check: 30 s answers (150 tokens, one every 0.2 s), a 20 s timeout, 4 at once."""
    check_single_slot_server(tokens=150, token_delay_s=0.2, timeout_s=20.0)


def test_silence_mid_stream_is_retried_and_announced(fake_openai: StartServer) -> None:
    server = fake_openai(
        reply=lambda body: WORDS, faults=on_requests({0: Fault.stall(after_tokens=3, seconds=30)})
    )
    events: list[RetryEvent] = []
    model = make_model(server.base_url, timeout_s=0.3, events=ModelEvents(retry=events.append))
    answer = generate_one(model)
    assert isinstance(answer, Generation)
    assert answer.text == WORDS and answer.attempts == 2
    assert answer.latency_s < 0.3 < answer.total_s
    [event] = events
    assert (event.sample_id, event.attempt, event.reason) == ("s1", 1, "no token for 0.3 s")
    assert event.wait_s > 0
    assert len(server.generations) == 2 and len(server.abandoned_generations) == 1


@pytest.mark.parametrize(
    ("fault", "reason"),
    [
        (Fault.error_event(500, after_tokens=2), "error event"),
        (Fault.dropped_connection(after_tokens=2), "connection dropped"),
    ],
    ids=["error-event", "dropped"],
)
def test_a_stream_that_breaks_off_is_retried(
    fake_openai: StartServer, fault: Fault, reason: str
) -> None:
    server = fake_openai(reply=lambda body: WORDS, faults=on_requests({0: fault}))
    events: list[RetryEvent] = []
    model = make_model(server.base_url, events=ModelEvents(retry=events.append))
    answer = generate_one(model)
    assert isinstance(answer, Generation)
    assert answer.text == WORDS and answer.attempts == 2
    assert [(event.attempt, event.reason) for event in events] == [(1, reason)]


def test_retries_are_announced_as_they_happen(fake_openai: StartServer, stream: bool) -> None:
    server = fake_openai(faults=fail_first(2, Fault.http_error(429, retry_after="0.01")))
    events: list[RetryEvent] = []
    model = make_model(server.base_url, stream=stream, events=ModelEvents(retry=events.append))
    answer = generate_one(model)
    assert isinstance(answer, Generation) and answer.attempts == 3
    assert [(e.sample_id, e.attempt, e.reason) for e in events] == [
        ("s1", 1, "HTTP 429"),
        ("s1", 2, "HTTP 429"),
    ]
    assert all(event.wait_s >= 0.01 for event in events)


def test_a_failed_sample_reports_its_attempts(fake_openai: StartServer, stream: bool) -> None:
    server = fake_openai(faults=fail_first(100, Fault.http_error(503)))
    events: list[RetryEvent] = []
    model = make_model(server.base_url, stream=stream, events=ModelEvents(retry=events.append))
    error = generate_one(model)
    assert isinstance(error, ModelError)
    assert error.attempts == 4 and error.total_s > 0
    assert [event.attempt for event in events] == [1, 2, 3]  # none after the last attempt


def test_answer_cut_off_by_max_tokens_reports_length(
    fake_openai: StartServer, stream: bool
) -> None:
    server = fake_openai(reply=lambda body: WORDS)
    answer = generate_one(make_model(server.base_url, stream=stream), ask(max_tokens=5))
    assert isinstance(answer, Generation)
    assert answer.text == "word0 word1 word2 word3 word4"
    assert answer.finish_reason == "length"
    assert answer.usage["completion_tokens"] == 5


def test_streamed_usage_is_empty_when_the_server_sends_none(fake_openai: StartServer) -> None:
    server = fake_openai(send_usage=False)
    answer = generate_one(make_model(server.base_url))
    assert isinstance(answer, Generation)
    assert answer.text == f"```svg\n{SVG}\n```" and answer.usage == {}
    [request] = server.chat_requests
    assert request.body is not None and request.body["stream_options"] == {"include_usage": True}


def test_reasoning_is_not_part_of_the_text(fake_openai: StartServer) -> None:
    server = fake_openai(reasoning="Let me think about the colours first.")
    answer = generate_one(make_model(server.base_url))
    assert isinstance(answer, Generation)
    assert answer.text == f"```svg\n{SVG}\n```"


def test_refused_stream_options_are_dropped_for_the_rest_of_the_run(
    fake_openai: StartServer,
) -> None:
    server = fake_openai(reject_stream_options=True)
    events: list[RetryEvent] = []
    model = make_model(server.base_url, concurrency=1, events=ModelEvents(retry=events.append))
    answers = generate_all(model, [ask("a", f"A: {SVG}"), ask("b", f"B: {SVG}")])
    assert [a.attempts if isinstance(a, Generation) else a for a in answers] == [2, 1]
    assert all(isinstance(a, Generation) and a.usage == {} for a in answers)
    sent = ["stream_options" in (r.body or {}) for r in server.chat_requests]
    assert sent == [True, False, False]
    assert [(e.sample_id, e.reason, e.wait_s) for e in events] == [
        ("a", "HTTP 400, retrying without usage", 0.0)
    ]


def test_other_bad_requests_keep_stream_options(fake_openai: StartServer) -> None:
    """A 400 for another reason fails that sample; once accepted, stream_options stay."""
    bad = Fault.http_error(400)
    server = fake_openai(faults=on_requests({0: bad, 1: bad, 3: bad}))
    model = make_model(server.base_url, concurrency=1)
    samples = [ask(name, f"{name}: {SVG}") for name in "abc"]  # one at a time, in this order
    first, second, third = generate_all(model, samples)
    assert isinstance(first, ModelError) and first.attempts == 2  # the second try had none
    assert isinstance(second, Generation) and second.usage != {}
    assert isinstance(third, ModelError) and third.attempts == 1  # accepted before: no 2nd try
    sent = ["stream_options" in (r.body or {}) for r in server.chat_requests]
    assert sent == [True, False, True, True]


def test_first_token_wait_may_be_unlimited(fake_openai: StartServer) -> None:
    server = fake_openai(delay_s=0.3)
    answer = generate_one(make_model(server.base_url, timeout_s=0.1, first_token_timeout_s=math.inf))
    assert isinstance(answer, Generation) and answer.attempts == 1


@pytest.mark.parametrize("options", [{"first_token_timeout_s": 0}, {"timeout_s": math.inf}])
def test_timeouts_must_be_positive_and_finite(options: dict[str, float]) -> None:
    with pytest.raises(ValueError, match="timeout must be > 0"):
        make_model("http://127.0.0.1:1/v1", **options)


def test_event_lines_may_be_split_anywhere() -> None:
    """Events cut across network reads, CRLF line ends, comments and other fields."""
    stream = 'event: x\r\n: ping\r\ndata: {"a": "é"}\r\n\r\ndata: [DONE]'.encode()
    inside_e = stream.index("é".encode()) + 1
    pieces = [stream[:3], stream[3:inside_e], stream[inside_e : inside_e + 5], stream[inside_e + 5 :]]

    async def chunks() -> AsyncIterator[bytes]:
        for piece in pieces:
            yield piece

    async def collect() -> list[str]:
        return [data async for data in _sse_data(chunks())]

    assert asyncio.run(collect()) == ['{"a": "é"}', "[DONE]"]

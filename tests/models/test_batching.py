"""BatchQueue: requests from the event loop answered in batches on one thread."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence

import pytest

from svgeval.models.batching import BatchQueue


def test_requests_waiting_together_are_answered_by_length_in_batches() -> None:
    """A first request holds the worker while six more arrive; they then make batches of
    neighbouring lengths, shortest first."""
    started, release = threading.Event(), threading.Event()
    batches: list[list[str]] = []

    def prepare(text: str) -> str:
        if text == "first":
            started.set()
            release.wait(10)
        return text

    def answer(batch: Sequence[str]) -> list[str | Exception]:
        batches.append(list(batch))
        return [text.upper() for text in batch]

    queue: BatchQueue[str, str, str] = BatchQueue(prepare, answer, len, batch_size=2,
                                                  linger_s=0.0)

    async def run() -> list[str]:
        first = asyncio.ensure_future(queue.submit("first"))
        await asyncio.to_thread(started.wait, 10)
        rest = [asyncio.ensure_future(queue.submit("x" * n)) for n in (5, 1, 4, 2, 6, 3)]
        await asyncio.sleep(0)  # every submit has parked its request
        release.set()
        answers = await asyncio.gather(first, *rest)
        queue.close()
        return answers

    answers = asyncio.run(run())
    assert answers == ["FIRST", *("X" * n for n in (5, 1, 4, 2, 6, 3))]
    assert batches == [["first"], ["x", "xx"], ["xxx", "xxxx"], ["xxxxx", "xxxxxx"]]
    assert queue.batches == [1, 2, 2, 2]


def test_a_request_that_cannot_be_prepared_fails_alone_and_a_batch_error_fails_its_batch() -> None:
    def prepare(text: str) -> str:
        if text == "bad":
            raise ValueError("no template for this")
        return text

    def answer(batch: Sequence[str]) -> list[str | Exception]:
        if "boom" in batch:
            raise RuntimeError("the device fell over")
        return [KeyError(text) if text == "refused" else text for text in batch]

    queue: BatchQueue[str, str, str] = BatchQueue(prepare, answer, len, batch_size=8,
                                                  linger_s=0.5)

    async def run(texts: list[str]) -> list[object]:
        return list(await asyncio.gather(*(queue.submit(t) for t in texts),
                                         return_exceptions=True))

    first = asyncio.run(run(["ok", "bad", "refused", "fine"]))
    assert first[0] == "ok" and first[3] == "fine"
    assert isinstance(first[1], ValueError) and isinstance(first[2], KeyError)
    second = asyncio.run(run(["boom", "also"]))  # a new event loop: the worker still answers
    assert all(isinstance(e, RuntimeError) and "fell over" in str(e) for e in second)
    queue.close()


def test_a_closed_queue_cancels_what_waits_and_starts_again_when_asked() -> None:
    answering, release = threading.Event(), threading.Event()

    def answer(batch: Sequence[str]) -> list[str | Exception]:
        answering.set()
        release.wait(10)
        return list(batch)

    queue: BatchQueue[str, str, str] = BatchQueue(lambda t: t, answer, len, batch_size=1,
                                                  linger_s=0.0)

    async def run() -> tuple[object, object]:
        busy = asyncio.ensure_future(queue.submit("busy"))
        await asyncio.to_thread(answering.wait, 10)  # the worker is answering "busy"
        waiting = asyncio.ensure_future(queue.submit("waiting"))
        await asyncio.sleep(0)
        queue.close()
        release.set()
        results = await asyncio.gather(busy, waiting, return_exceptions=True)
        return results[0], results[1]

    busy, waiting = asyncio.run(run())
    assert busy == "busy" and isinstance(waiting, asyncio.CancelledError)
    assert asyncio.run(queue.submit("again")) == "again"
    queue.close()


def test_a_batch_size_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="batch size must be at least 1, got 0"):
        BatchQueue(lambda t: t, list, len, batch_size=0)

"""Samples scored in batches, for a task that draws a whole batch's renders at once.

The runner scores each sample in its own coroutine. For a task that sets
:attr:`~svgeval.tasks.base.Task.scores_many`, :class:`ScoreBatches` gathers the samples whose
scoring is asked for while the event loop is busy into batches of at most ``size`` and hands
each batch to one thread (:meth:`~svgeval.tasks.base.Task.score_many`), at most ``in_flight``
batches at a time: the samples that arrive meanwhile wait and travel in the next batch. A
thread is then woken once per batch rather than once per render: scored one sample per
thread, a run spent much of its main process's CPU on the kernel's task switching
(``bench/RESULTS.md``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from svgeval.tasks.base import Sample
from svgeval.tasks.outcome import Outcome

Item = tuple[Sample[Any], str]
"""A sample and the response to score."""

ScoreMany = Callable[[Sequence[Item]], Awaitable[list[Outcome]]]
"""Scores a batch (off the event loop), one outcome per item in order."""


class ScoreBatches:
    """Batches the ``score`` calls of one event loop (module doc)."""

    def __init__(self, score_many: ScoreMany, size: int, in_flight: int) -> None:
        self._score_many = score_many
        self._size = size
        self._in_flight = in_flight
        self._waiting: list[tuple[Item, asyncio.Future[Outcome]]] = []
        self._running: set[asyncio.Task[None]] = set()
        self._send_scheduled = False

    async def score(self, sample: Sample[Any], response: str) -> Outcome:
        """The outcome of ``response`` to ``sample``, scored with others asked for meanwhile."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Outcome] = loop.create_future()
        self._waiting.append(((sample, response), future))
        if not self._send_scheduled:  # after the coroutines that are ready have asked too
            self._send_scheduled = True
            loop.call_soon(self._send)
        return await future

    def _send(self) -> None:
        """Start batches of the waiting samples while fewer than ``in_flight`` run."""
        self._send_scheduled = False
        # a sample whose coroutine was cancelled meanwhile (an interrupted run) is not scored
        self._waiting = [(item, future) for item, future in self._waiting if not future.done()]
        while self._waiting and len(self._running) < self._in_flight:
            batch, self._waiting = self._waiting[:self._size], self._waiting[self._size:]
            running = asyncio.ensure_future(self._run(batch))
            self._running.add(running)
            running.add_done_callback(self._finished)

    def _finished(self, running: asyncio.Task[None]) -> None:
        self._running.discard(running)
        self._send()

    async def _run(self, batch: list[tuple[Item, asyncio.Future[Outcome]]]) -> None:
        futures = [future for _, future in batch]
        try:
            outcomes = await self._score_many([item for item, _ in batch])
        except BaseException as error:  # the machinery failed: every waiting sample raises it
            for future in futures:
                if not future.done():
                    future.set_exception(error)
            if isinstance(error, (KeyboardInterrupt, SystemExit, asyncio.CancelledError)):
                raise
            return
        for future, outcome in zip(futures, outcomes):
            if not future.done():  # its coroutine may have been cancelled meanwhile
                future.set_result(outcome)

"""Requests from the runner's event loop, answered in batches on one worker thread.

The runner asks a model for one sample at a time, with up to ``--concurrency`` requests in
flight (:mod:`svgeval.runner.runner`); a checkpoint run in this process answers fastest when it
answers many prompts in one forward pass, and blocks while it does. :class:`BatchQueue` joins the
two: :meth:`BatchQueue.submit` parks a request and awaits its answer; the worker thread takes
every request waiting (after waiting up to ``linger_s`` for the next one while fewer than
``batch_size`` are there, so that requests sent together are answered together), prepares each
(chat template, token count), sorts them by size (prompt length) and answers them
``batch_size`` at a time. Requests that arrive meanwhile wait for the next round. The event loop
never blocks: the thread sets each answer on a future the loop awaits.

A request whose preparation fails (a template that refuses its messages, a prompt longer than
the model's context) fails alone, and so does one whose answer is an exception; an exception
raised for a whole batch fails each of its requests.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Generic, TypeVar

Request = TypeVar("Request")
Prepared = TypeVar("Prepared")
Answer = TypeVar("Answer")

LINGER_S = 0.01
"""How long the worker waits for one more request while fewer than a batch are waiting: the
runner sends the requests of a round within a millisecond or two of each other."""


class BatchQueue(Generic[Request, Prepared, Answer]):
    """Answers ``submit``-ted requests in batches of at most ``batch_size``, on one thread.

    ``prepare`` turns a request into what ``answer`` takes (it runs on the worker thread, and
    may raise for that request alone); ``size`` orders the prepared requests so that a batch
    holds prompts of similar lengths; ``answer`` returns one answer per prepared request, in
    order (an exception: that request failed), or raises for the whole batch.
    """

    def __init__(
        self,
        prepare: Callable[[Request], Prepared],
        answer: Callable[[Sequence[Prepared]], list[Answer | Exception]],
        size: Callable[[Prepared], int],
        batch_size: int,
        linger_s: float = LINGER_S,
        name: str = "svgeval-batches",
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch size must be at least 1, got {batch_size}")
        self.batch_size = batch_size
        self._prepare = prepare
        self._answer = answer
        self._size = size
        self.linger_s = linger_s
        """How long the worker waits for one more request while fewer than a batch wait."""
        self._name = name
        self._waiting: list[tuple[Request, Future[Answer]]] = []
        self._changed = threading.Condition()
        self._closed = False
        self._thread: threading.Thread | None = None
        self.batches: list[int] = []
        """The size of each batch answered, in order (for reports and tests)."""

    async def submit(self, request: Request) -> Answer:
        """The answer to ``request``, once the batch it joins is answered."""
        future: Future[Answer] = Future()
        with self._changed:
            self._closed = False  # a worker still finishing a batch after close() goes on
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._work, name=self._name, daemon=True)
                self._thread.start()
            self._waiting.append((request, future))
            self._changed.notify()
        return await asyncio.wrap_future(future)

    def close(self) -> None:
        """Stop the worker once it has answered what it holds; requests still waiting fail.

        Does not wait for a batch being answered (an interrupted run stops at once); a later
        :meth:`submit` starts a new worker.
        """
        with self._changed:
            self._closed = True
            waiting, self._waiting = self._waiting, []
            self._changed.notify()
        for _, future in waiting:
            future.cancel()

    def _take(self) -> list[tuple[Request, Future[Answer]]] | None:
        """Every request waiting, once there is one (None once closed)."""
        with self._changed:
            while not self._waiting and not self._closed:
                self._changed.wait()
            while not self._closed and 0 < len(self._waiting) < self.batch_size:
                before = len(self._waiting)
                self._changed.wait(self.linger_s)
                if len(self._waiting) == before:
                    break
            if self._closed:
                return None
            taken, self._waiting = self._waiting, []
            return taken

    def _work(self) -> None:
        while (taken := self._take()) is not None:
            prepared: list[tuple[Prepared, Future[Answer]]] = []
            for request, future in taken:
                if not future.set_running_or_notify_cancel():
                    continue  # its sample was cancelled
                try:
                    prepared.append((self._prepare(request), future))
                except BaseException as error:  # noqa: BLE001 - it fails this request alone
                    future.set_exception(error)
            prepared.sort(key=lambda item: self._size(item[0]))
            for start in range(0, len(prepared), self.batch_size):
                self._answer_batch(prepared[start:start + self.batch_size])

    def _answer_batch(self, batch: list[tuple[Prepared, Future[Answer]]]) -> None:
        self.batches.append(len(batch))
        try:
            answers = self._answer([item for item, _ in batch])
        except BaseException as error:  # noqa: BLE001 - handed to every request of the batch
            for _, future in batch:
                future.set_exception(error)
            return
        for (_, future), answer in zip(batch, answers, strict=True):
            if isinstance(answer, Exception):
                future.set_exception(answer)
            else:
                future.set_result(answer)

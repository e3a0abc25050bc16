"""Scoring the requests of many clients at once, so that none waits behind another's batch.

The reward server used to score whole requests one at a time: a request of 8,000 items, or one
holding a completion that takes its render's whole time limit, held every other client until it
finished. :class:`FairScorer` cuts each request into pieces of ``piece_items`` items; ``threads``
scoring threads take pieces round-robin over the requests in progress (the first piece of every
request, then the second of each, ...), and each piece renders through the shared worker pool.
A request arriving while others are being scored waits for the pieces being scored and for one
more piece of each request ahead of it in the rotation, not for the rest of those requests; a
piece stuck on a slow render holds one thread (and one render worker) for its time limit, and
the other threads go on.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from svgeval.rewards.pipeline import RewardResult

ScoreFunction = Callable[[Sequence[str], Sequence[str], Sequence[str | None]], list[RewardResult]]
"""``(completions, references, tasks) -> results`` (usually :meth:`RewardScorer.score`)."""


@dataclass
class _Request:
    """A request's pieces; ``taken`` of them have gone to a scoring thread."""

    completions: Sequence[str]
    references: Sequence[str]
    tasks: Sequence[str | None]
    pieces: list[range]
    answers: list[asyncio.Future[list[RewardResult]]]
    loop: asyncio.AbstractEventLoop
    taken: int = 0
    failed: bool = False
    """A piece raised: the pieces not yet taken are not scored."""


class FairScorer:
    """Scores requests piece by piece, round-robin over the requests in progress (see module)."""

    def __init__(self, score: ScoreFunction, threads: int = 4, piece_items: int = 64) -> None:
        if threads < 1 or piece_items < 1:
            raise ValueError("threads and piece_items must be at least 1")
        self._score = score
        self.piece_items = piece_items
        self._waiting: deque[_Request] = deque()
        self._ready = threading.Condition()
        self._closed = False
        self._threads = [threading.Thread(target=self._work, name=f"svgeval-rewards-{i}",
                                          daemon=True) for i in range(threads)]
        for thread in self._threads:
            thread.start()

    async def score(self, completions: Sequence[str], references: Sequence[str],
                    tasks: Sequence[str | None]) -> list[RewardResult]:
        """The results of every item, in order, once all its pieces are scored."""
        loop = asyncio.get_running_loop()
        pieces = [range(start, min(start + self.piece_items, len(completions)))
                  for start in range(0, len(completions), self.piece_items)]
        request = _Request(completions, references, tasks, pieces,
                           [loop.create_future() for _ in pieces], loop)
        if pieces:
            with self._ready:
                self._waiting.append(request)
                self._ready.notify(len(pieces))
        try:
            parts = await asyncio.gather(*request.answers)
        except BaseException:
            request.failed = True
            for answer in request.answers:
                answer.cancel()
            raise
        return [result for part in parts for result in part]

    def close(self) -> None:
        """Stop the threads once they finish the pieces they are scoring."""
        with self._ready:
            self._closed = True
            self._ready.notify_all()
        for thread in self._threads:
            thread.join()

    def _next(self) -> tuple[_Request, int] | None:
        """The next piece round-robin: the first request's next piece; that request goes to the
        back of the line if it has more. None when closed."""
        with self._ready:
            while not self._closed:
                while self._waiting:
                    request = self._waiting.popleft()
                    if request.failed:
                        continue
                    index = request.taken
                    request.taken += 1
                    if request.taken < len(request.pieces):
                        self._waiting.append(request)
                    return request, index
                self._ready.wait()
        return None

    def _work(self) -> None:
        while (taken := self._next()) is not None:
            request, index = taken
            piece = request.pieces[index]
            answer = request.answers[index]
            try:
                results = self._score([request.completions[i] for i in piece],
                                      [request.references[i] for i in piece],
                                      [request.tasks[i] for i in piece])
            except BaseException as error:  # noqa: BLE001 - handed to the request that sent it
                with self._ready:
                    request.failed = True
                request.loop.call_soon_threadsafe(_settle, answer, None, error)
            else:
                request.loop.call_soon_threadsafe(_settle, answer, results, None)


def _settle(answer: asyncio.Future[list[RewardResult]], results: list[RewardResult] | None,
            error: BaseException | None) -> None:
    if answer.done():  # the request was cancelled meanwhile
        return
    if error is not None:
        answer.set_exception(error)
    else:
        answer.set_result(results or [])

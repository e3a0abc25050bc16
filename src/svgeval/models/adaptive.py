"""How many requests an HTTP backend keeps in flight: fewer when the server sheds load, then
more again as it answers (additive increase, multiplicative decrease, as TCP does), and what
was learned, so that a later run against the same server starts from it.

A server says "too many" in the ways it has, and :class:`AdaptiveLimit` reads each:

* a stream it ends early to make room for another request of ours (llama-cpp-python's server
  does that on purpose, see ``docs/servers.md``), or a first token that never comes while other
  requests hold its slots (:meth:`AdaptiveLimit.cut`): it holds fewer than were in flight;
* a 429 or 503 (:meth:`AdaptiveLimit.refused`), when it is tied to the load. An attempt
  sent with *n* attempts in flight (itself included) that is refused is overload unless, among
  the last :data:`OUTCOME_WINDOW` outcomes, more attempts sent with *n* or more in flight were
  answered than attempts sent with *n* were refused: then the server does take *n* at once and
  refuses now and then whatever the load (a gateway whose upstream refuses at random, a rate
  limit, a request that arrived as another was leaving). Fewer requests would not help; the
  request is only retried (:mod:`svgeval.models.openai_compat` says after how long).

On overload the limit becomes ``max(1, min(limit, n) // 2)``, *n* the attempts in flight: half
of what the server was given, not half of ``--concurrency`` (with 2 in flight of 8 allowed, a
cut leaves 1, not 4). Signals from attempts sent before the last cut are not counted again (they
saw the old limit). After each answer the limit grows by one while the server has shown, in the
same way, that it takes more at once (recovery to what it took lately); beyond that, after
``patience`` answers in a row without a sign of overload. A cut that follows such a raise (the
raise was one too many) doubles the patience, so a server that takes one request at a time is
probed less and less often. A server that has cut a stream or starved a first token queues what
it cannot serve, and a queued request is answered with more in flight than were served at once:
from then on its answers show nothing, each of its 429 and 503 answers counts as overload, and
the limit grows by patience alone.

A request holds a place only while an attempt of it is in flight: waiting to retry, it gives its
place back and then queues before the requests not yet sent, so the limit counts attempts on the
wire, retries included, and a request waiting out a refusal does not hold the others back.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

PATIENCE = 8
"""Answers in a row, without a sign of overload, before one more request may be in flight
than the server has shown it takes."""

MAX_PATIENCE = 1024
"""The patience stops doubling here."""

OUTCOME_WINDOW = 64
"""The last outcomes (answers, 429s and 503s, each with the attempts in flight as it was sent)
that show how many requests at once the server takes."""


@dataclass(frozen=True)
class Learned:
    """What a run learned of a server: how many requests it took at once when last asked
    (``limit``), and how many answers in a row to wait before trying one more (``patience``)."""

    limit: int
    patience: int


@dataclass(frozen=True)
class Attempt:
    """One attempt as it was sent: the :attr:`AdaptiveLimit.cuts` then (its era) and the
    attempts in flight with it (itself included)."""

    era: int
    in_flight: int


class AdaptiveLimit:
    """At most :attr:`limit` places in flight, granted in the order they were asked for (a
    retry before the requests not yet sent); see the module docstring for how the limit moves.

    ``on_change``, when set, is called after the limit or the patience changed.
    """

    def __init__(self, ceiling: int, patience: int = PATIENCE) -> None:
        if ceiling < 1:
            raise ValueError(f"concurrency must be >= 1, got {ceiling}")
        self.ceiling = ceiling
        self.limit = ceiling
        self.started = ceiling
        """The limit the run started from (below :attr:`ceiling` after :meth:`start_from`)."""
        self.in_flight = 0
        """Places held: attempts on the wire."""
        self.lowest = ceiling
        """The lowest limit so far."""
        self.cuts = 0
        """Times the limit was lowered."""
        self.random_refusals = 0
        """429 and 503 answers not taken as overload (the server had shown it takes as many)."""
        self.patience = patience
        self.on_change: Callable[[], None] | None = None
        self._streak = 0
        self._raised_since_cut = False
        self._outcomes: deque[tuple[int, bool]] = deque(maxlen=OUTCOME_WINDOW)
        """(attempts in flight as it was sent, answered) of the last attempts."""
        self._queues = False
        self._waiters: deque[asyncio.Future[None]] = deque()

    @property
    def learned(self) -> Learned:
        """The limit and patience now, for a later run (:meth:`start_from`)."""
        return Learned(self.limit, self.patience)

    def start_from(self, learned: Learned) -> None:
        """Start where an earlier run against the same server left off (never above the
        ceiling)."""
        self.limit = self.started = self.lowest = max(1, min(self.ceiling, learned.limit))
        self.patience = max(1, min(MAX_PATIENCE, learned.patience))

    async def acquire(self, first: bool = False) -> None:
        """Wait for a place in flight (``first``: before every request waiting for one); give
        it back with :meth:`release`."""
        if not self._waiters and self.in_flight < self.limit:
            self.in_flight += 1
            return
        waiter = asyncio.get_running_loop().create_future()
        if first:
            self._waiters.appendleft(waiter)
        else:
            self._waiters.append(waiter)
        try:
            await waiter  # granted: _grant counted it in flight
        except BaseException:
            if waiter.done() and not waiter.cancelled():
                self.release()  # granted, then cancelled before it could run
            else:
                with contextlib.suppress(ValueError):  # _grant may have dropped it
                    self._waiters.remove(waiter)
            raise

    def release(self) -> None:
        """Give a place back."""
        self.in_flight -= 1
        self._grant()

    def send(self) -> Attempt:
        """An attempt is sent now, holding one of the places in flight."""
        return Attempt(self.cuts, self.in_flight)

    def answered(self, attempt: Attempt) -> None:
        """``attempt`` was answered; the limit may grow."""
        if not self._queues:
            self._outcomes.append((attempt.in_flight, True))
        if self.limit >= self.ceiling:
            return
        self._streak += 1
        if self._takes(self.limit + 1):  # back up to what the server took lately
            self._raise()
        elif self._streak >= self.patience:
            self._raised_since_cut = True
            self._raise()

    def refused(self, attempt: Attempt) -> bool:
        """``attempt`` got a 429 or 503: True for a random refusal; else it is overload, which
        lowers the limit unless the last cut already answered it (:attr:`cuts` says)."""
        random = self._takes(attempt.in_flight)
        if not self._queues:
            self._outcomes.append((attempt.in_flight, False))
        if random:
            self.random_refusals += 1
        else:
            self._overloaded(attempt.era, attempt.in_flight)
        return random

    def cut(self, era: int) -> None:
        """An attempt of era ``era`` was cut short, or got no first token, to serve the others
        in flight: overload, which lowers the limit unless the last cut already answered it."""
        self._queues = True
        self._outcomes.clear()
        self._overloaded(era, self.in_flight)

    def _takes(self, in_flight: int) -> bool:
        """Whether the last outcomes show that the server takes ``in_flight`` at once: more
        answers to attempts sent with as many or more in flight than refusals of attempts sent
        with as many."""
        answered = sum(ok and sent >= in_flight for sent, ok in self._outcomes)
        refused = sum(not ok and sent == in_flight for sent, ok in self._outcomes)
        return answered > refused

    def _overloaded(self, era: int, in_flight: int) -> None:
        """A sign of overload from an attempt of era ``era`` with ``in_flight`` attempts in
        flight."""
        self._streak = 0
        lowered = max(1, min(self.limit, in_flight) // 2)
        if era < self.cuts or lowered >= self.limit:
            return
        if self._raised_since_cut:
            self.patience = min(MAX_PATIENCE, 2 * self.patience)
        self.limit = lowered
        self.lowest = min(self.lowest, self.limit)
        self.cuts += 1
        self._raised_since_cut = False
        self._changed()

    def _raise(self) -> None:
        self._streak = 0
        self.limit += 1
        self._changed()
        self._grant()

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    def _grant(self) -> None:
        """Hand free places to the longest waiters."""
        while self._waiters and self.in_flight < self.limit:
            waiter = self._waiters.popleft()
            if not waiter.done():
                self.in_flight += 1
                waiter.set_result(None)


class Place:
    """One request's place in an :class:`AdaptiveLimit`, which knows whether it is held, so
    that giving it back is safe at any point (after a cancelled wait, twice)."""

    def __init__(self, limit: AdaptiveLimit) -> None:
        self._limit = limit
        self.held = False

    async def take(self, first: bool = False) -> None:
        """Wait for the place (``first``: a retry, before the requests not yet sent)."""
        await self._limit.acquire(first)
        self.held = True

    def give_back(self) -> None:
        """Give the place back, if held."""
        if self.held:
            self.held = False
            self._limit.release()

"""How many requests an HTTP backend keeps in flight: fewer when the server sheds load, then
more again as it answers (additive increase, multiplicative decrease, as TCP does).

A server can only say "too many" in the ways it has: 429 and 503 answers, streams it ends
early because another request arrived (llama-cpp-python's server does that on purpose, see
``docs/servers.md``), first tokens that never come while other requests hold its slots. On
each such signal :class:`AdaptiveLimit` halves the number of attempts allowed in flight (never
below one); after ``patience`` answers in a row without one it allows one more, up to the
``--concurrency`` the user asked for. Signals from attempts sent before the last cut are not
counted again (they saw the old limit), and a cut that follows a raise (the raise was one too
many) doubles the patience, so a server that takes one request at a time is probed less and
less often: after the first few answers, each sample costs one generation.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque

PATIENCE = 8
"""Answers in a row, without a sign of overload, before one more request may be in flight."""

MAX_PATIENCE = 1024
"""The patience stops doubling here."""


class AdaptiveLimit:
    """At most :attr:`limit` places in flight, granted in the order they were asked for.

    A request holds its place through its retries, so that a server that refused it sees no
    new request meanwhile; after a cut, a request that has to retry gives its place back while
    it waits (:attr:`over`), so the limit takes hold.
    """

    def __init__(self, ceiling: int, patience: int = PATIENCE) -> None:
        if ceiling < 1:
            raise ValueError(f"concurrency must be >= 1, got {ceiling}")
        self.ceiling = ceiling
        self.limit = ceiling
        self.in_flight = 0
        self.lowest = ceiling
        """The lowest limit so far."""
        self.cuts = 0
        """Times the limit was lowered."""
        self.patience = patience
        self._streak = 0
        self._raised_since_cut = False
        self._waiters: deque[asyncio.Future[None]] = deque()

    @property
    def over(self) -> bool:
        """True when more places are held than the limit now allows (it was just cut)."""
        return self.in_flight > self.limit

    async def acquire(self) -> None:
        """Wait for a place in flight; give it back with :meth:`release`."""
        if not self._waiters and self.in_flight < self.limit:
            self.in_flight += 1
            return
        waiter = asyncio.get_running_loop().create_future()
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

    def overloaded(self, era: int) -> bool:
        """A sign of overload seen by an attempt sent when :attr:`cuts` was ``era``; True if
        the limit fell."""
        self._streak = 0
        if era < self.cuts or self.limit == 1:
            return False
        if self._raised_since_cut:
            self.patience = min(MAX_PATIENCE, 2 * self.patience)
        self.limit = max(1, self.limit // 2)
        self.lowest = min(self.lowest, self.limit)
        self.cuts += 1
        self._raised_since_cut = False
        return True

    def answered(self) -> None:
        """An answer arrived; after ``patience`` of them in a row, one more may be in flight."""
        if self.limit >= self.ceiling:
            return
        self._streak += 1
        if self._streak >= self.patience:
            self._streak = 0
            self.limit += 1
            self._raised_since_cut = True
            self._grant()

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

    async def take(self) -> None:
        """Wait for the place."""
        await self._limit.acquire()
        self.held = True

    def give_back(self) -> None:
        """Give the place back, if held."""
        if self.held:
            self.held = False
            self._limit.release()

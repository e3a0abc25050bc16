"""The requests-in-flight limit: halved on overload, raised by one after a run of answers."""

from __future__ import annotations

import asyncio

import pytest

from svgeval.models.adaptive import MAX_PATIENCE, AdaptiveLimit, Place


def test_each_cut_halves_the_limit_down_to_one() -> None:
    limit = AdaptiveLimit(8)
    assert [limit.overloaded(limit.cuts) for _ in range(5)] == [True, True, True, False, False]
    assert (limit.limit, limit.lowest, limit.cuts) == (1, 1, 3)


def test_signals_from_attempts_sent_before_a_cut_count_once() -> None:
    limit = AdaptiveLimit(8)
    era = limit.cuts  # eight attempts sent together, all interrupted
    assert [limit.overloaded(era) for _ in range(8)] == [True] + [False] * 7
    assert limit.limit == 4


def test_the_limit_grows_by_one_after_patience_answers() -> None:
    limit = AdaptiveLimit(4, patience=3)
    limit.overloaded(0)
    limit.overloaded(1)
    assert limit.limit == 1
    grown = []
    for _ in range(9):
        limit.answered()
        grown.append(limit.limit)
    assert grown == [1, 1, 2, 2, 2, 3, 3, 3, 4]
    for _ in range(10):
        limit.answered()
    assert limit.limit == 4  # never above what was asked


def test_a_failed_raise_doubles_the_patience() -> None:
    limit = AdaptiveLimit(2, patience=2)
    limit.overloaded(0)  # the first cut: no raise before it, the patience stays
    assert (limit.limit, limit.patience) == (1, 2)
    limit.answered()
    limit.answered()
    assert limit.limit == 2
    limit.overloaded(limit.cuts)  # the raise was one too many
    assert (limit.limit, limit.patience) == (1, 4)
    for _ in range(20):
        for _ in range(limit.patience):
            limit.answered()
        limit.overloaded(limit.cuts)
    assert limit.patience == MAX_PATIENCE


def test_places_are_granted_in_order_and_only_up_to_the_limit() -> None:
    async def go() -> tuple[list[str], int]:
        limit = AdaptiveLimit(2)
        limit.overloaded(0)  # limit 1
        order: list[str] = []
        most = 0

        async def job(name: str) -> None:
            nonlocal most
            await limit.acquire()
            try:
                most = max(most, limit.in_flight)
                order.append(name)
                await asyncio.sleep(0.01)
            finally:
                limit.release()

        await asyncio.gather(*(job(f"j{i}") for i in range(5)))
        return order, most

    order, most = asyncio.run(go())
    assert order == ["j0", "j1", "j2", "j3", "j4"] and most == 1


def test_a_cancelled_waiter_gives_its_place_back() -> None:
    async def go() -> int:
        limit = AdaptiveLimit(1)
        await limit.acquire()
        waiting = asyncio.ensure_future(limit.acquire())
        await asyncio.sleep(0)
        limit.release()  # granted to the waiter...
        waiting.cancel()  # ...which is cancelled before it runs
        with pytest.raises(asyncio.CancelledError):
            await waiting
        return limit.in_flight

    assert asyncio.run(go()) == 0


def test_a_place_given_back_twice_or_never_taken_frees_nothing_more() -> None:
    async def go() -> int:
        limit = AdaptiveLimit(1)
        first, second = Place(limit), Place(limit)
        await first.take()
        waiting = asyncio.ensure_future(second.take())
        await asyncio.sleep(0)
        waiting.cancel()  # cancelled while it waits: second never held the place
        with pytest.raises(asyncio.CancelledError):
            await waiting
        second.give_back()
        first.give_back()
        first.give_back()
        return limit.in_flight

    assert asyncio.run(go()) == 0

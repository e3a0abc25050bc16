"""The requests-in-flight limit: halved on overload, raised after answers, refusals told apart."""

from __future__ import annotations

import asyncio

import pytest

from svgeval.models.adaptive import MAX_PATIENCE, AdaptiveLimit, Attempt, Learned, Place


def holding(ceiling: int, in_flight: int, **options: int) -> AdaptiveLimit:
    """A limit with ``in_flight`` places held (taken as the backend takes them)."""
    limit = AdaptiveLimit(ceiling, **options)

    async def take() -> None:
        for _ in range(in_flight):
            await limit.acquire()

    asyncio.run(take())
    return limit


def answer(limit: AdaptiveLimit, in_flight: int, times: int = 1) -> None:
    """``times`` answers to attempts sent with ``in_flight`` in flight."""
    for _ in range(times):
        limit.answered(Attempt(limit.cuts, in_flight))


def refuse(limit: AdaptiveLimit, in_flight: int) -> bool:
    """A 429 to an attempt sent now with ``in_flight`` in flight; True for a random refusal."""
    return limit.refused(Attempt(limit.cuts, in_flight))


def test_a_cut_halves_the_requests_in_flight_not_the_concurrency() -> None:
    limit = holding(8, in_flight=2)
    limit.cut(limit.cuts)
    assert limit.limit == 1  # half of the 2 in flight, where main made it 4 (half of 8)
    limit = holding(8, in_flight=8)
    limits = []
    for _ in range(5):
        limit.cut(limit.cuts)
        limits.append(limit.limit)
    assert limits == [4, 2, 1, 1, 1] and (limit.lowest, limit.cuts) == (1, 3)


def test_signals_from_attempts_sent_before_a_cut_count_once() -> None:
    limit = holding(8, in_flight=8)
    era = limit.cuts  # eight attempts sent together, all interrupted
    for _ in range(8):
        limit.cut(era)
    assert (limit.limit, limit.cuts) == (4, 1)


def test_a_refusal_is_random_when_the_server_answers_as_many_at_once() -> None:
    limit = holding(8, in_flight=8)
    answer(limit, 8)
    for _ in range(10):  # a tenth refused, 8 in flight each time
        assert refuse(limit, 8)
        answer(limit, 8, times=9)
    assert (limit.limit, limit.cuts, limit.random_refusals) == (8, 0, 10)


def test_a_refusal_beyond_what_the_server_answered_at_once_is_overload() -> None:
    limit = holding(8, in_flight=8)
    answer(limit, 2, times=5)  # a server that answers two at once
    assert not refuse(limit, 6)
    assert (limit.limit, limit.random_refusals) == (3, 0)  # half of the 6 in flight
    assert not limit.refused(Attempt(0, 8))  # overload, but sent before the cut
    assert refuse(limit, 2)  # as many as it answered: random
    assert (limit.limit, limit.cuts, limit.random_refusals) == (3, 1, 1)


def test_the_first_refusal_before_any_answer_is_overload() -> None:
    limit = holding(8, in_flight=8)
    assert not refuse(limit, 8) and limit.limit == 4


def test_refusals_that_outnumber_the_answers_are_overload() -> None:
    limit = holding(8, in_flight=8)
    answer(limit, 8)
    assert refuse(limit, 8)  # one answer, no refusal before: random
    assert not refuse(limit, 8)  # one answer, one refusal: the server does not show it takes 8
    assert limit.limit == 4


def test_after_refusals_answers_bring_the_limit_back_to_what_the_server_took_at_once() -> None:
    limit = holding(8, in_flight=8, patience=3)
    answer(limit, 6, times=6)
    assert not refuse(limit, 8) and limit.limit == 4
    grown = []
    for _ in range(8):
        answer(limit, 1)
        grown.append(limit.limit)
    assert grown == [5, 6, 6, 6, 7, 7, 7, 8]  # one per answer up to 6, then one per 3 answers


def test_after_a_cut_the_limit_grows_by_one_after_patience_answers() -> None:
    limit = holding(4, in_flight=4, patience=3)
    limit.cut(0)
    limit.cut(1)
    assert limit.limit == 1
    grown = []
    for _ in range(9):
        answer(limit, 1)
        grown.append(limit.limit)
    assert grown == [1, 1, 2, 2, 2, 3, 3, 3, 4]
    answer(limit, 4, times=8)  # a server that cuts queues: its answers show nothing
    assert not refuse(limit, 2)


def test_a_failed_raise_doubles_the_patience() -> None:
    limit = holding(2, in_flight=2, patience=2)
    limit.cut(0)  # the first cut: no raise before it, the patience stays
    assert (limit.limit, limit.patience) == (1, 2)
    answer(limit, 1, times=2)
    assert limit.limit == 2
    limit.cut(limit.cuts)  # the raise was one too many
    assert (limit.limit, limit.patience) == (1, 4)
    for _ in range(20):
        for _ in range(limit.patience):
            answer(limit, 1)
        limit.cut(limit.cuts)
    assert limit.patience == MAX_PATIENCE


def test_a_run_starts_from_what_an_earlier_one_learned() -> None:
    changes: list[Learned] = []
    limit = holding(8, in_flight=2)
    limit.on_change = lambda: changes.append(limit.learned)
    limit.cut(0)
    assert changes == [Learned(1, 8)]
    later = AdaptiveLimit(4)
    later.start_from(Learned(limit=2, patience=32))
    assert (later.limit, later.started, later.lowest, later.patience) == (2, 2, 2, 32)
    later.start_from(Learned(limit=16, patience=8))
    assert later.limit == 4  # never above the ceiling asked for now


def test_places_are_granted_in_order_and_only_up_to_the_limit() -> None:
    async def go() -> tuple[list[str], int]:
        limit = AdaptiveLimit(1)
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


def test_a_retry_queues_before_the_requests_not_yet_sent() -> None:
    async def go() -> list[str]:
        limit = AdaptiveLimit(1)
        await limit.acquire()
        order: list[str] = []

        async def wait(name: str, first: bool) -> None:
            await limit.acquire(first)
            order.append(name)
            limit.release()

        waiting = [asyncio.ensure_future(wait("new", False)),
                   asyncio.ensure_future(wait("retry", True))]
        await asyncio.sleep(0)
        limit.release()
        await asyncio.gather(*waiting)
        return order

    assert asyncio.run(go()) == ["retry", "new"]


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

"""Samples scored in batches: every sample gets its own outcome, batches stay within their
size and number in flight, a failing machinery reaches every waiting sample, a scorer bug only
the samples it fails, and SVGEditBench's batches score what one sample at a time scores."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from svgeval.render.isolated import Renderer
from svgeval.runner.executors import score_batch
from svgeval.runner.score_batches import Item, ScoreBatches
from svgeval.tasks.base import CommonOptions, Sample
from svgeval.tasks.outcome import FailureKind, Outcome
from svgeval.tasks.svgeditbench import SvgEditBench


def sample(k: int) -> Sample[Any]:
    return Sample(id=str(k), group="g", messages=[], reference="", target=None)


def test_batches_keep_their_size_and_number_in_flight() -> None:
    sizes: list[int] = []
    running, most = 0, 0

    async def score_many(items: Sequence[Item]) -> list[Outcome]:
        nonlocal running, most
        sizes.append(len(items))
        running += 1
        most = max(most, running)
        await asyncio.sleep(0.01)
        running -= 1
        return [Outcome.of(s, {"k": float(s.id)}) for s, _ in items]

    async def main() -> list[Outcome]:
        batches = ScoreBatches(score_many, size=4, in_flight=2)

        async def one(k: int) -> Outcome:
            await asyncio.sleep(0.001 * (k % 3))  # the coroutines ask at different times
            return await batches.score(sample(k), "r")

        return await asyncio.gather(*(one(k) for k in range(30)))

    outcomes = asyncio.run(main())
    assert [o.metrics["k"] for o in outcomes] == [float(k) for k in range(30)]
    assert sum(sizes) == 30 and max(sizes) <= 4 and most <= 2
    assert len(sizes) < 30  # samples travelled together


def test_a_failing_machinery_reaches_every_waiting_sample() -> None:
    async def score_many(items: Sequence[Item]) -> list[Outcome]:
        raise RuntimeError("render workers lost")

    async def main() -> list[Any]:
        batches = ScoreBatches(score_many, size=8, in_flight=1)
        return await asyncio.gather(*(batches.score(sample(k), "r") for k in range(5)),
                                    return_exceptions=True)

    assert [str(e) for e in asyncio.run(main())] == ["render workers lost"] * 5


class Buggy(SvgEditBench):
    """SVGEditBench whose batch scoring raises, and whose scoring of one sample raises only
    for the answer ``boom``."""

    def score_many(self, items: Sequence[tuple[Sample[Any], str]],
                   renderer: Renderer) -> list[Outcome]:
        if len(items) > 1:
            raise ValueError("a bug in the batch")
        if items[0][1] == "boom":
            raise ValueError("a bug for this answer")
        return super().score_many(items, renderer)


def test_a_scorer_bug_fails_only_the_samples_it_fails(demo_data: Path) -> None:
    task = Buggy(CommonOptions(data=demo_data))
    samples = list(task.load())[:3]
    items = [(samples[0], "no svg here"), (samples[1], "boom"), (samples[2], "")]
    with Renderer(workers=1) as renderer:
        outcomes = score_batch(task, items, renderer)
    kinds = [o.failure.kind if o.failure else None for o in outcomes]
    assert kinds == [FailureKind.EXTRACT, FailureKind.SCORER_ERROR, FailureKind.EXTRACT]
    assert outcomes[1].failure is not None
    assert "a bug for this answer" in (outcomes[1].failure.detail or "")


def test_svgeditbench_batches_score_what_single_samples_score(demo_data: Path) -> None:
    task = SvgEditBench(CommonOptions(data=demo_data))
    samples = list(task.load())
    # right answers, no SVG, broken SVG, the unchanged inputs (identity), an unrelated icon
    responses = [s.reference for s in samples]
    responses[1:3] = ["no svg", "<svg"]
    responses[3:40] = [s.input_svg or "" for s in samples[3:40]]
    responses[40] = samples[0].reference
    items = list(zip(samples, responses))
    with Renderer(workers=2) as renderer:
        together = task.score_many(items, renderer)
    with Renderer(workers=1) as renderer:
        alone = [task.score(s, r, renderer) for s, r in items]
    assert [o.model_dump() for o in together] == [o.model_dump() for o in alone]
    assert together[0].metrics["mse"] == 0.0
    assert together[1].failure is not None and together[2].failure is not None
    assert together[1].metrics["mse_all"] is not None  # the unchanged input's MSE


def test_a_cancelled_sample_is_not_scored() -> None:
    scored: list[str] = []

    async def score_many(items: Sequence[Item]) -> list[Outcome]:
        scored.extend(s.id for s, _ in items)
        await asyncio.sleep(0.01)
        return [Outcome.of(s) for s, _ in items]

    async def main() -> None:
        batches = ScoreBatches(score_many, size=2, in_flight=1)
        first = asyncio.ensure_future(batches.score(sample(0), "r"))
        await asyncio.sleep(0)  # the first batch (sample 0) is under way
        later = [asyncio.ensure_future(batches.score(sample(k), "r")) for k in (1, 2)]
        await asyncio.sleep(0)
        later[0].cancel()  # an interrupted run cancels the sample's coroutine
        await first
        await later[1]

    asyncio.run(main())
    assert scored == ["0", "2"]

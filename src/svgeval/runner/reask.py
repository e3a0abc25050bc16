"""Asking the model again while its answer is not in the format the task reads.

Some released protocols re-ask: SGP-Bench calls the model up to five times until its reply
holds ``Answer: X``, SVGBench up to three times until it holds an SVG. A task that reproduces
one says how many asks a sample gets (:meth:`~svgeval.tasks.base.Task.asks_per_sample`, a
``--set reask=N`` option) and which replies end the asking
(:meth:`~svgeval.tasks.base.Task.answer_complete`). The same request is sent each time; the
last reply is the sample's answer, and its record counts every ask: ``timing.attempts`` sums
the HTTP attempts of all asks and ``usage`` their tokens. A request that fails for good ends the
asking (a model error, never an answer).
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from svgeval.models.base import Generation, GenerationRequest, Model, ModelError
from svgeval.tasks.base import Task


def _summed(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """Token counts of two replies added up (numbers only; other fields of the last kept)."""
    out = {**first, **second}
    for key in set(first) & set(second):
        a, b = first[key], second[key]
        if isinstance(a, int) and isinstance(b, int):
            out[key] = a + b
    return out


async def ask_until_complete(model: Model, request: GenerationRequest, task: Task) -> Generation:
    """The model's reply to ``request``, asked up to ``task.asks_per_sample()`` times until
    ``task.answer_complete`` accepts it; :class:`ModelError` as the model raises it."""
    asks = max(1, task.asks_per_sample())
    started = time.perf_counter()
    generation = await model.generate(request)
    attempts, usage = generation.attempts, dict(generation.usage or {})
    for _ in range(asks - 1):
        if task.answer_complete(generation.text):
            break
        try:
            generation = await model.generate(request)
        except ModelError as error:
            error.attempts += attempts
            raise
        attempts += generation.attempts
        usage = _summed(usage, dict(generation.usage or {}))
    if attempts == generation.attempts:
        return generation
    return replace(generation, attempts=attempts, usage=usage,
                   total_s=time.perf_counter() - started)

"""Helpers for the tests of the in-process backends: chats, and requests sent all at once."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from svgeval.models import Generation, GenerationRequest, Model


def chat(text: str) -> list[dict[str, Any]]:
    """A one-message chat."""
    return [{"role": "user", "content": text}]


def answer_all(model: Model, asked: Sequence[GenerationRequest]) -> list[Generation]:
    """Every request in flight at once (as the runner sends ``--concurrency`` of them), then the
    model closed."""
    answers: list[Generation] = settle_all(model, asked, raise_first=True)
    return answers


def settle_all(model: Model, asked: Sequence[GenerationRequest],
               raise_first: bool = False) -> list[Any]:
    """Like :func:`answer_all`, with each failed request's exception in place of its answer
    (unless ``raise_first``)."""

    async def run() -> list[Any]:
        try:
            return list(await asyncio.gather(*(model.generate(r) for r in asked),
                                             return_exceptions=not raise_first))
        finally:
            await model.aclose()

    return asyncio.run(run())

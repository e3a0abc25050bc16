"""Helpers for the HTTP backend tests: a model with quick retries, requests, and running them."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from svgeval.models import Generation, GenerationRequest, RetryPolicy
from svgeval.models.openai_compat import OpenAICompatibleModel

FAST = RetryPolicy(max_retries=3, base_delay_s=0.01, max_delay_s=0.05, retry_after_cap_s=2.0)
SVG = "<svg><rect/></svg>"
TIME_LIMIT_S = 10.0


def make_model(base_url: str, **options: Any) -> OpenAICompatibleModel:
    options.setdefault("retry", FAST)
    return OpenAICompatibleModel(
        "openai-compatible:fake-model", model="fake-model", base_url=base_url, **options
    )


def ask(
    sample_id: str = "s1", text: str = f"Recolor this: {SVG}", **fields: Any
) -> GenerationRequest:
    return GenerationRequest(sample_id, [{"role": "user", "content": text}], **fields)


def generate_all(
    model: OpenAICompatibleModel,
    requests: Sequence[GenerationRequest],
    time_limit_s: float = TIME_LIMIT_S,
) -> list[Generation | BaseException]:
    """Run the requests concurrently, close the model, and return answers or errors.

    A run longer than ``time_limit_s`` fails the test (a broken cap must not hang the suite).
    """

    async def go() -> list[Generation | BaseException]:
        answers = asyncio.gather(*(model.generate(r) for r in requests), return_exceptions=True)
        try:
            return await asyncio.wait_for(answers, time_limit_s)
        finally:
            await model.aclose()

    return asyncio.run(go())


def generate_one(model: OpenAICompatibleModel, request: GenerationRequest | None = None) -> Any:
    return generate_all(model, [request or ask()])[0]

"""Any Python function from chat messages to text, as a model backend.

The function takes the sample's messages (OpenAI format, :mod:`svgeval.messages`) and
returns the answer's text. A plain function runs in a worker thread, so up to ``--concurrency``
calls run at once (pass ``concurrency=1`` for a function that must not run twice at a time); an
``async def`` function runs on the event loop. An exception it raises fails that sample (a
``model_error`` record, asked again on ``--resume``); an answer that is not a string stops the
run, since every answer would be wrong in the same way.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable

from svgeval.messages import Message
from svgeval.models.base import Generation, GenerationRequest, Model, ModelError, ModelUnavailable

ChatFunction = Callable[[list[Message]], str | Awaitable[str]]
"""A function from a chat (a list of messages) to the answer's text, plain or ``async``."""


class CallableModel(Model):
    """``function`` answering each request's messages."""

    def __init__(self, function: ChatFunction, spec: str | None = None) -> None:
        self.function = function
        self.spec = spec or f"callable:{getattr(function, '__qualname__', type(function).__name__)}"

    async def generate(self, request: GenerationRequest) -> Generation:
        started = time.perf_counter()
        messages = [dict(message) for message in request.messages]  # the function may mutate
        try:
            if inspect.iscoroutinefunction(self.function):
                answer = await self.function(messages)
            else:
                answer = await asyncio.to_thread(self.function, messages)
                if inspect.isawaitable(answer):
                    answer = await answer
        except Exception as error:
            elapsed = time.perf_counter() - started
            summary = (str(error).strip().splitlines() or [""])[0][:300]
            raise ModelError(f"{type(error).__name__}: {summary}".rstrip(": "),
                             total_s=elapsed) from error
        if not isinstance(answer, str):
            raise ModelUnavailable(
                f"{self.spec} returned {type(answer).__name__}, not the answer's text (str)"
            )
        elapsed = time.perf_counter() - started
        return Generation(answer, latency_s=elapsed, total_s=elapsed)

"""One HTTP round trip to a Chat Completions server: send, time the waits, read the answer.

:class:`ChatConnection` holds the connection pool of one backend and turns a request body into
a :class:`~svgeval.models.base.Generation` or an
:class:`~svgeval.models.chat_responses.AttemptFailure` (what went wrong, and whether it is worth
another try), or raises :class:`~svgeval.models.base.ModelUnavailable` when the answer shows
that no request can work. Retries, backoff and the number of requests in flight are the
caller's (:mod:`svgeval.models.openai_compat`).

A streamed attempt has two limits: the first event must come within ``first_token_timeout_s``
of sending the request (that wait includes the server's queue), and after it no gap between
events may last ``timeout_s``. A server that ignores ``"stream": true`` and answers with one
``application/json`` body is read as a whole answer (its content type decides), the body within
``timeout_s`` of the headers. Without streaming, the whole answer must come within
``timeout_s``. Connecting gets at most ``CONNECT_TIMEOUT_S`` either way.

A stream whose ``[DONE]`` comes without a finish reason was interrupted, never finished:
llama-cpp-python's server, with its default ``interrupt_requests``, ends the running stream that
way as soon as another request waits for the model, whoever sent it (another request of ours,
another client, our own judge on the same server). It is retried; when ``crowded()`` held as the
``[DONE]`` was read (other requests of the caller in flight; not when the body ends: the request
it made room for may be answered by then) the cut made room for one of ours (``made_room``).

Statuses: 429, 408, 409 and 5xx are retryable failures; 401, 402, 403, 404, 405 and 501 raise
ModelUnavailable (bad key, no credit, unknown model, a URL that takes no chat requests, such as
``python -m http.server``'s 501 to every POST); other 4xx fail the request alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from dataclasses import replace
from typing import Any, TypeVar

import httpx

from svgeval import __version__
from svgeval.models.base import Generation, ModelError, ModelUnavailable
from svgeval.models.chat_responses import (
    AttemptFailed,
    AttemptFailure,
    StreamedAnswer,
    connect_failure_reason,
    decoded_event,
    error_detail,
    is_json,
    parse_completion,
)
from svgeval.models.endpoint import Endpoint
from svgeval.models.retry import is_retryable_status, parse_retry_after

CONNECT_TIMEOUT_S = 15.0
"""The longest wait for a connection, so an unreachable host is reported quickly."""

UNAVAILABLE_STATUSES = frozenset({401, 402, 403, 404, 405, 501})
"""Statuses that mean no request to this backend can succeed."""

T = TypeVar("T")


class ChatConnection:
    """The requests of one backend to ``endpoint``: one :meth:`attempt` is one round trip.

    ``spec`` names the backend in messages; ``api_key`` is sent as a bearer token, and
    ``api_key_env`` (the variable it came from, None if none was named) only serves the hint
    of a refused key. The connection pool belongs to the event loop of the first request.
    """

    def __init__(
        self,
        spec: str,
        endpoint: Endpoint,
        *,
        api_key: str | None,
        api_key_env: str | None,
        concurrency: int,
        timeout_s: float,
        first_token_timeout_s: float,
        stream: bool,
    ) -> None:
        self.spec = spec
        self.endpoint = endpoint
        self.url = f"{endpoint.shown}/chat/completions"
        """The request URL as it may be shown (credentials hidden)."""
        self.timeout_s = timeout_s
        self.first_token_timeout_s = first_token_timeout_s
        self.stream = stream
        self.server_reached = False
        """True once any request got an HTTP answer."""
        self.no_first_token = AttemptFailure(
            f"no first token in {first_token_timeout_s:g} s",
            f"no token within {first_token_timeout_s:g} s of sending the request"
            " (the first-token timeout)",
        )
        self._no_token = AttemptFailure(
            f"no token for {timeout_s:g} s",
            f"the server sent no token for {timeout_s:g} s (the timeout)",
        )
        self._no_answer = AttemptFailure(
            f"no answer in {timeout_s:g} s", f"no answer within the {timeout_s:g} s timeout"
        )
        self._api_key = api_key
        self._api_key_env = api_key_env
        headers = {"User-Agent": f"svgeval/{__version__}"}
        if api_key is not None:
            headers["Authorization"] = f"Bearer {api_key}"
        # Reads have no httpx timeout: the waits for answers and tokens are timed here.
        self._client = httpx.AsyncClient(
            headers=headers,
            timeout=httpx.Timeout(
                connect=min(timeout_s, CONNECT_TIMEOUT_S), read=None, write=timeout_s, pool=None
            ),
            limits=httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency),
        )

    async def attempt(
        self, body: dict[str, Any], crowded: Callable[[], bool], stream: bool | None = None
    ) -> Generation | AttemptFailure:
        """One HTTP round trip: the generation, a failure, or a raised ModelUnavailable;
        streamed unless the connection does not stream or ``stream`` is False (``body`` then
        goes without its stream settings)."""
        started = time.perf_counter()
        streamed = self.stream if stream is None else stream
        if not streamed:
            body = {key: value for key, value in body.items()
                    if key not in ("stream", "stream_options")}
        try:
            if streamed:
                outcome = await self._streamed(body, crowded)
            else:
                outcome = await _within(self.timeout_s, self._whole(body), self._no_answer)
        except AttemptFailed as failed:
            return failed.failure
        except ModelError as error:  # a 200 answer that is not a chat completion
            return AttemptFailure("malformed answer", str(error), retryable=False)
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            reason = connect_failure_reason(exc)
            if not self.server_reached:
                raise ModelUnavailable(
                    f"{self.spec}: cannot reach {self.endpoint.shown} ({reason}); "
                    "is the server running? check --base-url"
                ) from exc
            return AttemptFailure(reason, reason, connect_failed=True)
        except httpx.TimeoutException as exc:  # sending the request took longer than timeout_s
            return AttemptFailure("timeout", f"{type(exc).__name__} after {self.timeout_s:g} s")
        except httpx.TransportError as exc:  # before the answer began
            return AttemptFailure(
                "connection dropped", f"connection failed ({type(exc).__name__}: {exc})"
            )
        if isinstance(outcome, Generation):
            return replace(outcome, latency_s=time.perf_counter() - started)
        return outcome

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._client.aclose()

    async def _whole(self, body: dict[str, Any]) -> Generation | AttemptFailure:
        """Send ``body`` and read the answer as one JSON object."""
        response = await self._client.post(self.endpoint.chat_url, json=body)
        self.server_reached = True
        if response.status_code != 200:
            return self._failure(response)
        return parse_completion(response)

    async def _streamed(
        self, body: dict[str, Any], crowded: Callable[[], bool]
    ) -> Generation | AttemptFailure:
        """Send ``body`` and assemble the streamed answer, timing the waits for its events."""
        deadline = time.monotonic() + self.first_token_timeout_s
        request = self._client.build_request("POST", self.endpoint.chat_url, json=body)
        response = await _within(
            deadline - time.monotonic(),
            self._client.send(request, stream=True),
            self.no_first_token,
        )
        try:
            self.server_reached = True
            if response.status_code != 200 or is_json(response):  # an error, or not streamed
                await _within(self.timeout_s, response.aread(), self._no_token)
                if response.status_code != 200:
                    return self._failure(response)
                return parse_completion(response)
            try:
                answer, crowded_at_done = await self._read_stream(response, deadline, crowded)
            except httpx.TransportError as exc:
                return AttemptFailure(
                    "connection dropped",
                    f"the connection broke off mid-answer ({type(exc).__name__}: {exc})",
                    interrupted=True,
                )
        finally:
            await response.aclose()
        if answer.done and answer.finish_reason is None:
            return AttemptFailure(
                "stream interrupted",
                "the stream ended with [DONE] but no finish reason (a server making room for "
                + ("another of our requests)" if crowded_at_done else "another client's request; "
                   "if this server never sends a finish reason, run with --no-stream)"),
                interrupted=True,
                made_room=crowded_at_done,
            )
        return answer.outcome()

    async def _read_stream(
        self, response: httpx.Response, deadline: float, crowded: Callable[[], bool]
    ) -> tuple[StreamedAnswer, bool]:
        """The answer streamed in ``response``, whose first event must come before ``deadline``,
        and whether ``crowded()`` held when its ``[DONE]`` was read.

        Reads on after ``[DONE]`` to the end of the body, so that the connection can be reused;
        a body that never ends or breaks off after ``[DONE]`` still holds the answer (as
        llama-cpp-python's does when it interrupts a stream).
        """
        answer = StreamedAnswer()
        crowded_at_done = False
        async with contextlib.aclosing(_sse_data(response.aiter_bytes())) as events:
            while True:
                if answer.started:
                    wait_s, silence = self.timeout_s, self._no_token
                else:
                    wait_s, silence = deadline - time.monotonic(), self.no_first_token
                try:
                    data = await _within(wait_s, anext(events, None), silence)
                except (AttemptFailed, httpx.TransportError):
                    if answer.done:
                        break
                    raise
                if data is None:
                    break
                if data == "[DONE]" and not answer.done:
                    crowded_at_done = crowded()
                answer.add(data)
        return answer, crowded_at_done

    def _failure(self, response: httpx.Response) -> AttemptFailure:
        """The failure an error status means; raises ModelUnavailable when no request can work."""
        status = response.status_code
        detail = error_detail(response)
        if is_retryable_status(status) and status != 501:
            return AttemptFailure(
                f"HTTP {status}",
                f"HTTP {status}: {detail}",
                retry_after_s=parse_retry_after(response.headers),
                status=status,
            )
        message = f"HTTP {status} from {self.url}: {detail}"
        if status in (401, 403):
            raise ModelUnavailable(f"{self.spec}: {message}; {self._key_hint()}")
        if status == 404:
            raise ModelUnavailable(f"{self.spec}: {message}; check the model name and --base-url")
        if status in (405, 501):
            raise ModelUnavailable(
                f"{self.spec}: {message}; the server takes no chat requests there: check that "
                "--base-url is the API root of a Chat Completions server (often ending in /v1)"
            )
        if status in UNAVAILABLE_STATUSES:
            raise ModelUnavailable(f"{self.spec}: {message}")
        return AttemptFailure(f"HTTP {status}", message, retryable=False, status=status)

    def _key_hint(self) -> str:
        """What to check when the server refuses our credentials."""
        if self._api_key_env is None:
            return "no API key was sent: name its environment variable with --api-key-env"
        if self._api_key is not None:
            return f"check the API key in ${self._api_key_env}"
        return f"no API key was sent: set ${self._api_key_env}"


async def _within(seconds: float, step: Awaitable[T], failure: AttemptFailure) -> T:
    """``await step``, raising AttemptFailed(failure) when it takes longer than ``seconds``."""
    try:
        return await asyncio.wait_for(step, None if seconds == math.inf else max(0.0, seconds))
    except asyncio.TimeoutError:
        raise AttemptFailed(failure) from None


async def _sse_data(chunks: AsyncIterator[bytes]) -> AsyncGenerator[str, None]:
    """The payloads of the ``data:`` lines of a server-sent event stream.

    One payload a line, as OpenAI-compatible servers send them; comments (``: ping``), other
    fields (``event:``, ``id:``) and blank lines are skipped.
    """
    pending = b""
    async for chunk in chunks:
        *lines, pending = (pending + chunk).split(b"\n")
        for line in lines:
            if line.startswith(b"data:"):
                yield decoded_event(line[5:])
    if pending.startswith(b"data:"):  # a last line without its newline
        yield decoded_event(pending[5:])

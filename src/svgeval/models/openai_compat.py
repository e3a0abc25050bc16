"""A backend for any server that speaks the OpenAI Chat Completions API.

That covers the OpenAI API itself and OpenRouter, as well as local servers (vLLM, Ollama,
LM Studio, llama.cpp, TGI). Each :meth:`OpenAICompatibleModel.generate` call sends one
``POST {base_url}/chat/completions`` request (more when it retries). At most ``concurrency``
calls are in progress at once, and the slot is held through the retries, so a throttled server
sees fewer requests.

Answers are streamed (server-sent events) by default, so that a slow server that is still
producing tokens is never abandoned mid-answer. Two limits apply to a streamed attempt:

* ``first_token_timeout_s`` bounds the wait from sending the request to the first event of the
  answer. That wait includes the time the request spends in the server's queue, which on a
  server with fewer generation slots than ``concurrency`` can be several whole answers long, so
  it defaults to ``FIRST_TOKEN_TIMEOUT_FACTOR`` times ``timeout_s`` (``math.inf``: no limit).
* ``timeout_s`` bounds each silence after that: no token for ``timeout_s`` seconds aborts the
  attempt, however long the whole answer takes.

With ``stream=False`` (servers without streaming) the whole answer must arrive within
``timeout_s``. Either way, connecting gets at most ``CONNECT_TIMEOUT_S``.

A streamed request asks for token usage with ``stream_options: {"include_usage": true}``.
Until a server has accepted that once, a 400 or 422 answer is followed at once by the same
request without it (announced as a retry, but not counted against ``RetryPolicy.max_retries``);
when that one succeeds, ``stream_options`` is left out for the rest of the run. Servers that
send no usage give empty usage.

How failures surface:

* 429, 408, 409, 5xx, timeouts, dropped connections, streams cut off before the end and error
  events inside a stream are retried with backoff (see
  :class:`~svgeval.models.retry.RetryPolicy`), each retry announced to :attr:`Model.on_retry`;
  when the retries run out, :class:`ModelError` names the last failure.
* 400, 422 and other 4xx answers, and answers that are not chat completions, are a problem with
  that one request: :class:`ModelError` at once.
* 401, 402, 403 and 404 (bad key, no credit, unknown model or wrong URL) mean no request can
  succeed: :class:`ModelUnavailable`.
* A server that cannot be reached at all (connection refused, unknown host, connect timeout) on
  the first contact raises :class:`ModelUnavailable` at once. After an earlier success, the
  request is retried first, in case the server is restarting, and ``ModelUnavailable`` is raised
  if it stays down.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import random
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable
from dataclasses import replace
from typing import Any, Literal, TypeVar

import httpx

from svgeval import __version__
from svgeval.models.base import (
    Generation,
    GenerationRequest,
    Model,
    ModelError,
    ModelUnavailable,
    RetryEvent,
)
from svgeval.models.chat_responses import (
    AttemptFailed,
    AttemptFailure,
    StreamedAnswer,
    connect_failure_reason,
    decoded_event,
    error_detail,
    parse_completion,
)
from svgeval.models.retry import RetryPolicy, is_retryable_status, parse_retry_after

UNAVAILABLE_STATUSES = frozenset({401, 402, 403, 404})
"""Statuses that mean no request to this backend can succeed."""

BAD_REQUEST_STATUSES = frozenset({400, 422})
"""Statuses with which a server may refuse a field it does not know, such as ``stream_options``."""

USAGE_FIELDS = ("prompt_tokens", "completion_tokens", "total_tokens")

CONNECT_TIMEOUT_S = 15.0
"""The longest wait for a connection, so an unreachable host is reported quickly."""

FIRST_TOKEN_TIMEOUT_FACTOR = 10.0
"""The default ``first_token_timeout_s`` is this many times ``timeout_s``."""

STREAM_OPTIONS = {"include_usage": True}
"""Asks a streaming server for a last chunk with the token usage."""

T = TypeVar("T")


class OpenAICompatibleModel(Model):
    """Chat Completions over HTTP with bounded concurrency, streaming, retries and timeouts.

    ``max_tokens_field`` is the request field that carries ``GenerationRequest.max_tokens``:
    ``max_tokens`` for most servers, ``max_completion_tokens`` for the OpenAI API (which
    deprecated ``max_tokens`` and rejects it for reasoning models). ``api_key_env`` only names
    the variable the key came from (None: none was named), for error messages. ``stream``,
    ``timeout_s`` and ``first_token_timeout_s`` are explained in the module docstring. The
    connection pool belongs to the event loop of the first request: make every call, ``aclose``
    included, in that one loop.
    """

    def __init__(
        self,
        spec: str,
        *,
        model: str,
        base_url: str,
        api_key: str | None = None,
        api_key_env: str | None = "OPENAI_API_KEY",
        max_tokens_field: str = "max_tokens",
        concurrency: int = 8,
        timeout_s: float = 120.0,
        first_token_timeout_s: float | None = None,
        stream: bool = True,
        retry: RetryPolicy | None = None,
    ) -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency must be >= 1, got {concurrency}")
        if not 0 < timeout_s < math.inf:
            raise ValueError(f"timeout must be > 0 seconds, got {timeout_s}")
        if first_token_timeout_s is None:
            first_token_timeout_s = FIRST_TOKEN_TIMEOUT_FACTOR * timeout_s
        if not first_token_timeout_s > 0:
            raise ValueError(f"first-token timeout must be > 0 seconds, got {first_token_timeout_s}")
        self.spec = spec
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.url = f"{self.base_url}/chat/completions"
        self.timeout_s = timeout_s
        self.first_token_timeout_s = first_token_timeout_s
        self.stream = stream
        self.retry = retry if retry is not None else RetryPolicy()
        self._no_first_token = AttemptFailure(
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
        self._api_key_env = api_key_env
        self._sent_key = api_key is not None
        self._max_tokens_field = max_tokens_field
        self._stream_options: Literal["untried", "accepted", "refused"] = "untried"
        self._slots = asyncio.Semaphore(concurrency)
        self._rng = random.Random()
        self._server_reached = False
        headers = {"User-Agent": f"svgeval/{__version__}"}
        if api_key is not None:
            headers["Authorization"] = f"Bearer {api_key}"
        # Reads have no httpx timeout: the waits for answers and tokens are timed in _attempt.
        self._client = httpx.AsyncClient(
            headers=headers,
            timeout=httpx.Timeout(
                connect=min(timeout_s, CONNECT_TIMEOUT_S), read=None, write=timeout_s, pool=None
            ),
            limits=httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency),
        )

    def payload(self, request: GenerationRequest) -> dict[str, Any]:
        """The JSON body sent for ``request`` (messages are passed through unchanged)."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": request.messages,
        }
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if request.max_tokens is not None:
            body[self._max_tokens_field] = request.max_tokens
        if request.seed is not None:
            body["seed"] = request.seed
        if self.stream:
            body["stream"] = True
            if self._stream_options != "refused":
                body["stream_options"] = dict(STREAM_OPTIONS)
        return body

    async def generate(self, request: GenerationRequest) -> Generation:
        """Send one request, retrying transient failures; see the module docstring for errors."""
        async with self._slots:
            return await self._generate(request)

    async def _generate(self, request: GenerationRequest) -> Generation:
        """The retry loop of :meth:`generate`, run while holding a concurrency slot."""
        body = self.payload(request)
        started = time.perf_counter()
        attempts = retries = 0
        dropped_stream_options = False
        while True:
            attempts += 1
            outcome = await self._attempt(body)
            total_s = time.perf_counter() - started
            if isinstance(outcome, Generation):
                if "stream_options" in body:
                    self._stream_options = "accepted"
                elif dropped_stream_options:  # it was stream_options that the server refused
                    self._stream_options = "refused"
                return replace(outcome, attempts=attempts, total_s=total_s)
            if (
                "stream_options" in body
                and outcome.status in BAD_REQUEST_STATUSES
                and self._stream_options != "accepted"  # "refused" by a concurrent request
            ):
                body = {key: value for key, value in body.items() if key != "stream_options"}
                dropped_stream_options = True
                self._announce(request, attempts, f"{outcome.reason}, retrying without usage", 0.0)
                continue
            if not outcome.retryable or retries == self.retry.max_retries:
                raise self._final_error(outcome, attempts, total_s)
            wait_s = self.retry.delay_s(retries, outcome.retry_after_s, self._rng)
            self._announce(request, attempts, outcome.reason, wait_s)
            await asyncio.sleep(wait_s)
            retries += 1

    def _announce(self, request: GenerationRequest, attempt: int, reason: str, wait_s: float) -> None:
        """Tell ``on_retry`` (if set) that ``attempt`` failed and another follows."""
        if self.on_retry is not None:
            self.on_retry(RetryEvent(request.sample_id, attempt, reason, wait_s))

    def _final_error(self, failure: AttemptFailure, attempts: int, total_s: float) -> Exception:
        """The error to raise when ``failure`` ends the request."""
        if failure.connect_failed:
            return ModelUnavailable(
                f"{self.spec}: {self.base_url} stopped answering ({failure.message}, "
                f"{attempts} attempts)"
            )
        message = failure.message
        if failure.retryable:
            message = f"gave up after {attempts} attempts; last error: {message}"
        return ModelError(message, attempts=attempts, total_s=total_s)

    async def _attempt(self, body: dict[str, Any]) -> Generation | AttemptFailure:
        """One HTTP round trip: the generation, a failure, or a raised ModelUnavailable."""
        started = time.perf_counter()
        try:
            if self.stream:
                outcome = await self._streamed(body)
            else:
                outcome = await _within(self.timeout_s, self._whole(body), self._no_answer)
        except AttemptFailed as failed:
            return failed.failure
        except ModelError as error:  # a 200 answer that is not a chat completion
            return AttemptFailure("malformed answer", str(error), retryable=False)
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            reason = connect_failure_reason(exc)
            if not self._server_reached:
                raise ModelUnavailable(
                    f"{self.spec}: cannot reach {self.base_url} ({reason}); "
                    "is the server running? check --base-url"
                ) from exc
            return AttemptFailure(reason, reason, connect_failed=True)
        except httpx.TimeoutException as exc:  # sending the request took longer than timeout_s
            return AttemptFailure("timeout", f"{type(exc).__name__} after {self.timeout_s:g} s")
        except httpx.TransportError as exc:
            return AttemptFailure("connection dropped", f"connection failed ({type(exc).__name__}: {exc})")
        if isinstance(outcome, Generation):
            return replace(outcome, latency_s=time.perf_counter() - started)
        return outcome

    async def _whole(self, body: dict[str, Any]) -> Generation | AttemptFailure:
        """Send ``body`` and read the answer as one JSON object."""
        response = await self._client.post(self.url, json=body)
        self._server_reached = True
        if response.status_code != 200:
            return self._failure(response)
        return parse_completion(response)

    async def _streamed(self, body: dict[str, Any]) -> Generation | AttemptFailure:
        """Send ``body`` and assemble the streamed answer, timing the waits for its events."""
        deadline = time.monotonic() + self.first_token_timeout_s
        request = self._client.build_request("POST", self.url, json=body)
        response = await _within(
            deadline - time.monotonic(),
            self._client.send(request, stream=True),
            self._no_first_token,
        )
        try:
            self._server_reached = True
            if response.status_code != 200:
                await _within(self.timeout_s, response.aread(), self._no_token)
                return self._failure(response)
            return await self._read_stream(response, deadline)
        finally:
            await response.aclose()

    async def _read_stream(self, response: httpx.Response, deadline: float) -> Generation | AttemptFailure:
        """The answer streamed in ``response``, whose first event must come before ``deadline``.

        Reads on after ``[DONE]`` to the end of the body, so that the connection can be reused.
        """
        answer = StreamedAnswer()
        async with contextlib.aclosing(_sse_data(response.aiter_bytes())) as events:
            while True:
                if answer.started:
                    wait_s, silence = self.timeout_s, self._no_token
                else:
                    wait_s, silence = deadline - time.monotonic(), self._no_first_token
                try:
                    data = await _within(wait_s, anext(events, None), silence)
                except AttemptFailed:
                    if answer.done:  # the server never ended the body: the answer is whole
                        break
                    raise
                if data is None:
                    break
                answer.add(data)
        return answer.outcome()

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._client.aclose()

    def _failure(self, response: httpx.Response) -> AttemptFailure:
        """The failure an error status means; raises ModelUnavailable when no request can work."""
        status = response.status_code
        detail = error_detail(response)
        if is_retryable_status(status):
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
        if status in UNAVAILABLE_STATUSES:
            raise ModelUnavailable(f"{self.spec}: {message}")
        return AttemptFailure(f"HTTP {status}", message, retryable=False, status=status)

    def _key_hint(self) -> str:
        """What to check when the server refuses our credentials."""
        if self._api_key_env is None:
            return "no API key was sent: name its environment variable with --api-key-env"
        if self._sent_key:
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

"""A backend for any server that speaks the OpenAI Chat Completions API.

That covers the OpenAI API itself and OpenRouter, as well as local servers (vLLM, Ollama,
LM Studio, llama.cpp, TGI). Each :meth:`OpenAICompatibleModel.generate` call sends one
``POST {base_url}/chat/completions`` request. At most ``concurrency`` calls are in progress at
once, and the slot is held through the retries, so a throttled server sees fewer requests.

How failures surface:

* 429, 408, 409, 5xx, timeouts and dropped connections are retried with backoff (see
  :class:`~svgeval.models.retry.RetryPolicy`); when the retries run out, :class:`ModelError`
  names the last failure.
* 400, 422 and other 4xx answers are a problem with that one request: :class:`ModelError` at once.
* 401, 402, 403 and 404 (bad key, no credit, unknown model or wrong URL) mean no request can
  succeed: :class:`ModelUnavailable`.
* A server that cannot be reached at all (connection refused, unknown host, connect timeout) on
  the first contact raises :class:`ModelUnavailable` at once. After an earlier success, the
  request is retried first, in case the server is restarting, and ``ModelUnavailable`` is raised
  if it stays down.

The ``timeout_s`` applies to each wait for data from the server, which for a non-streamed answer
is the time until the answer arrives; connecting gets at most ``CONNECT_TIMEOUT_S``.
"""

from __future__ import annotations

import asyncio
import random
import socket
import time
from dataclasses import dataclass
from typing import Any

import httpx

from svgeval import __version__
from svgeval.models.base import (
    Generation,
    GenerationRequest,
    Model,
    ModelError,
    ModelUnavailable,
)
from svgeval.models.retry import RetryPolicy, is_retryable_status, parse_retry_after

UNAVAILABLE_STATUSES = frozenset({401, 402, 403, 404})
"""Statuses that mean no request to this backend can succeed."""

USAGE_FIELDS = ("prompt_tokens", "completion_tokens", "total_tokens")

CONNECT_TIMEOUT_S = 15.0
"""The longest wait for a connection, so an unreachable host is reported quickly."""


@dataclass(frozen=True)
class _Failure:
    """A failed attempt worth retrying: what went wrong and how long the server asked to wait."""

    message: str
    retry_after_s: float | None = None
    connect_failed: bool = False


class OpenAICompatibleModel(Model):
    """Chat Completions over HTTP with bounded concurrency, retries and timeouts.

    ``max_tokens_field`` is the request field that carries ``GenerationRequest.max_tokens``:
    ``max_tokens`` for most servers, ``max_completion_tokens`` for the OpenAI API (which
    deprecated ``max_tokens`` and rejects it for reasoning models). ``api_key_env`` only names
    the variable the key came from (None: none was named), for error messages. The connection pool belongs to the
    event loop of the first request: make every call, ``aclose`` included, in that one loop.
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
        retry: RetryPolicy | None = None,
    ) -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency must be >= 1, got {concurrency}")
        if not timeout_s > 0:
            raise ValueError(f"timeout must be > 0 seconds, got {timeout_s}")
        self.spec = spec
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.url = f"{self.base_url}/chat/completions"
        self.timeout_s = timeout_s
        self.retry = retry if retry is not None else RetryPolicy()
        self._api_key_env = api_key_env
        self._sent_key = api_key is not None
        self._max_tokens_field = max_tokens_field
        self._slots = asyncio.Semaphore(concurrency)
        self._rng = random.Random()
        self._server_reached = False
        headers = {"User-Agent": f"svgeval/{__version__}"}
        if api_key is not None:
            headers["Authorization"] = f"Bearer {api_key}"
        self._client = httpx.AsyncClient(
            headers=headers,
            timeout=httpx.Timeout(timeout_s, connect=min(timeout_s, CONNECT_TIMEOUT_S)),
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
        return body

    async def generate(self, request: GenerationRequest) -> Generation:
        """Send one request, retrying transient failures; see the module docstring for errors."""
        body = self.payload(request)
        async with self._slots:
            retry = 0
            while True:
                outcome = await self._attempt(body)
                if isinstance(outcome, Generation):
                    return outcome
                if retry == self.retry.max_retries:
                    break
                await asyncio.sleep(self.retry.delay_s(retry, outcome.retry_after_s, self._rng))
                retry += 1
        attempts = retry + 1
        if outcome.connect_failed:
            raise ModelUnavailable(
                f"{self.spec}: {self.base_url} stopped answering ({outcome.message}, "
                f"{attempts} attempts)"
            )
        raise ModelError(f"gave up after {attempts} attempts; last error: {outcome.message}")

    async def _attempt(self, body: dict[str, Any]) -> Generation | _Failure:
        """One HTTP round trip: the generation, a retryable failure, or a raised error."""
        started = time.perf_counter()
        try:
            response = await self._client.post(self.url, json=body)
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            if not self._server_reached:
                raise ModelUnavailable(
                    f"{self.spec}: cannot reach {self.base_url} ({_connect_failure_reason(exc)}); "
                    "is the server running? check --base-url"
                ) from exc
            return _Failure(_connect_failure_reason(exc), connect_failed=True)
        except httpx.TimeoutException:
            return _Failure(f"no answer within the {self.timeout_s:g} s timeout")
        except httpx.TransportError as exc:
            return _Failure(f"connection failed ({type(exc).__name__}: {exc})")
        self._server_reached = True
        if response.status_code == 200:
            return _parse_generation(response, time.perf_counter() - started)
        self._raise_if_not_retryable(response)
        return _Failure(
            f"HTTP {response.status_code}: {_error_detail(response)}",
            retry_after_s=parse_retry_after(response.headers),
        )

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._client.aclose()

    def _raise_if_not_retryable(self, response: httpx.Response) -> None:
        """Raise the error a non-retryable status calls for; return for transient ones."""
        status = response.status_code
        if is_retryable_status(status):
            return
        message = f"HTTP {status} from {self.url}: {_error_detail(response)}"
        if status in (401, 403):
            raise ModelUnavailable(f"{self.spec}: {message}; {self._key_hint()}")
        if status == 404:
            raise ModelUnavailable(f"{self.spec}: {message}; check the model name and --base-url")
        if status in UNAVAILABLE_STATUSES:
            raise ModelUnavailable(f"{self.spec}: {message}")
        raise ModelError(message)

    def _key_hint(self) -> str:
        """What to check when the server refuses our credentials."""
        if self._api_key_env is None:
            return "no API key was sent: name its environment variable with --api-key-env"
        if self._sent_key:
            return f"check the API key in ${self._api_key_env}"
        return f"no API key was sent: set ${self._api_key_env}"


def _parse_generation(response: httpx.Response, latency_s: float) -> Generation:
    """The text and token usage of a 200 answer; ModelError if it is not a chat completion."""
    try:
        body = response.json()
    except ValueError as exc:
        raise ModelError(f"the server answered 200 with a body that is not JSON: {exc}") from exc
    choices = body.get("choices") if isinstance(body, dict) else None
    if not choices or not isinstance(choices, list) or not isinstance(choices[0], dict):
        raise ModelError(f"the server answered 200 without choices: {_error_detail(response)}")
    message = choices[0].get("message") or {}
    finish_reason = choices[0].get("finish_reason")
    return Generation(
        text=_content_text(message.get("content")),
        latency_s=latency_s,
        usage=_usage(body.get("usage")),
        finish_reason=finish_reason if isinstance(finish_reason, str) else None,
    )


def _content_text(content: Any) -> str:
    """Message content as text: null (reasoning models that ran out of tokens) becomes ""."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # a few servers answer with content parts
        return "".join(
            part.get("text") or "" for part in content
            if isinstance(part, dict) and part.get("type") == "text"
        )
    raise ModelError(f"unexpected message content of type {type(content).__name__}")


def _usage(usage: Any) -> dict[str, Any]:
    """Token counts the server reported, including reasoning tokens when it breaks them out."""
    if not isinstance(usage, dict):
        return {}
    counts = {name: usage[name] for name in USAGE_FIELDS if isinstance(usage.get(name), int)}
    details = usage.get("completion_tokens_details")
    if isinstance(details, dict) and isinstance(details.get("reasoning_tokens"), int):
        counts["reasoning_tokens"] = details["reasoning_tokens"]
    return counts


def _error_detail(response: httpx.Response, limit: int = 300) -> str:
    """The server's own error message on one line (OpenAI, vLLM and FastAPI shapes)."""
    detail: Any = None
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict):
        error = body.get("error")
        detail = error.get("message") if isinstance(error, dict) else error
        detail = detail or body.get("message") or body.get("detail")
    text = str(detail) if detail else response.text or response.reason_phrase or "no details"
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= limit else one_line[: limit - 3] + "..."


def _connect_failure_reason(exc: BaseException) -> str:
    """'connection refused', 'host name not found', 'connection timed out' or the error text."""
    if isinstance(exc, httpx.ConnectTimeout):
        return "connection timed out"
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, ConnectionRefusedError):
            return "connection refused"
        if isinstance(cause, socket.gaierror):
            return "host name not found"
        cause = cause.__cause__ or cause.__context__
    return str(exc) or type(exc).__name__

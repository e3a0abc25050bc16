"""A backend for any server that speaks the OpenAI Chat Completions API.

That covers the OpenAI API itself and OpenRouter, as well as local servers (vLLM, Ollama,
LM Studio, llama.cpp, llama-cpp-python, TGI). Each :meth:`OpenAICompatibleModel.generate` call
sends one ``POST {base_url}/chat/completions`` request (more when it retries) through a
:class:`~svgeval.models.chat_http.ChatConnection`, which also explains the timeouts
(``timeout_s``, ``first_token_timeout_s``), streaming, and servers that ignore ``"stream"``.

At most ``concurrency`` attempts are in flight at once; a request waiting to retry holds no
place, so the backend takes every request the runner has ready (:attr:`Model.paces_requests`).
When the server sheds load (streams it ends early or first tokens that time out while other
requests are in flight, 429 and 503 answers tied to the load) fewer are sent at once, down to
one, and more again as answers arrive; a 429 or 503 while the server answers as many at once is
a random refusal, retried without lowering the limit after ``Retry-After`` or the first retry's
wait, which does not grow (:mod:`svgeval.models.adaptive`). The first cut is told once to its :class:`ModelEvents`, and
:meth:`OpenAICompatibleModel.report` gives the cuts (``results.json``'s
``model_report.concurrency``). What was learned is handed out by :meth:`Model.learned`, so that
a later run against the same server starts from it (:meth:`Model.start_from`).

A streamed request asks for token usage with ``stream_options: {"include_usage": true}``.
Until a server has accepted that once, a 400 or 422 answer is followed at once by the same
request without it (announced as a retry, but not counted against ``RetryPolicy.max_retries``);
when that one succeeds, ``stream_options`` is left out for the rest of the run. Servers that
send no usage give empty usage.

How failures surface:

* 429, 408, 409, 5xx, timeouts, dropped connections, streams cut off before the end and error
  events inside a stream are retried with backoff (see
  :class:`~svgeval.models.retry.RetryPolicy`), each retry announced to its :class:`ModelEvents`;
  when the retries run out, :class:`ModelError` names the last failure. A stream cut short
  (after its answer began) while other requests are in flight, a server making room for them,
  is retried without counting against the retries.
* 400, 422 and other 4xx answers, and answers that are not chat completions, are a problem with
  that one request: :class:`ModelError` at once.
* 401, 402, 403 and 404 (bad key, no credit, unknown model or wrong URL), and 405 and 501 (a
  server that takes no POST there, such as ``python -m http.server``) mean no request can
  succeed: :class:`ModelUnavailable`. So does a server error (5xx other than 503, without
  ``Retry-After``) to each of the first ``NEVER_ANSWERED_ATTEMPTS`` attempts in a row, before
  any answer; 503 ("try again later", as a server loading its model says) is waited for.
* A server that cannot be reached at all (connection refused, unknown host, connect timeout) on
  the first contact raises :class:`ModelUnavailable` at once. After an earlier success, the
  request is retried first, in case the server is restarting, and ``ModelUnavailable`` is raised
  if it stays down.

Every message names the endpoint with its credentials hidden
(:attr:`~svgeval.models.endpoint.Endpoint.shown`), and server text in it has the API key and
the base URL's secrets replaced by ``***``.
"""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Literal

from svgeval.models.adaptive import AdaptiveLimit, Attempt, Learned, Place
from svgeval.models.base import (
    Generation,
    GenerationRequest,
    InvalidModelSetting,
    Model,
    ModelError,
    ModelEvents,
    ModelUnavailable,
    RetryEvent,
)
from svgeval.models.chat_http import CONNECT_TIMEOUT_S, ChatConnection
from svgeval.models.chat_responses import AttemptFailure
from svgeval.models.endpoint import parse_endpoint
from svgeval.models.retry import RetryPolicy
from svgeval.run_request import DEFAULTS

__all__ = ["CONNECT_TIMEOUT_S", "OpenAICompatibleModel"]

OVERLOAD_STATUSES = frozenset({429, 503})
"""Statuses with which a server refuses work it has no room for."""

NEVER_ANSWERED_ATTEMPTS = 4
"""Attempts in a row answered with a server error (not 503), before any answer, that stop the
run."""

BAD_REQUEST_STATUSES = frozenset({400, 422})
"""Statuses with which a server may refuse a field it does not know, such as ``stream_options``."""

FIRST_TOKEN_TIMEOUT_FACTOR = 10.0
"""The default ``first_token_timeout_s`` is this many times ``timeout_s``."""

STREAM_OPTIONS = {"include_usage": True}
"""Asks a streaming server for a last chunk with the token usage."""


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

    paces_requests = True

    def __init__(
        self,
        spec: str,
        *,
        model: str,
        base_url: str,
        api_key: str | None = None,
        api_key_env: str | None = "OPENAI_API_KEY",
        max_tokens_field: str = "max_tokens",
        concurrency: int = DEFAULTS.concurrency,
        timeout_s: float = DEFAULTS.timeout,
        first_token_timeout_s: float | None = None,
        stream: bool = DEFAULTS.stream,
        retry: RetryPolicy | None = None,
        events: ModelEvents | None = None,
    ) -> None:
        if concurrency < 1:
            raise InvalidModelSetting(f"concurrency must be >= 1, got {concurrency}")
        if not 0 < timeout_s < math.inf:
            raise InvalidModelSetting(f"timeout must be > 0 seconds, got {timeout_s}")
        if first_token_timeout_s is None:
            first_token_timeout_s = FIRST_TOKEN_TIMEOUT_FACTOR * timeout_s
        if not first_token_timeout_s > 0:
            raise InvalidModelSetting(
                f"first-token timeout must be > 0 seconds, got {first_token_timeout_s}")
        self.spec = spec
        self.model = model
        endpoint = parse_endpoint(base_url)
        if endpoint.basic_auth and api_key is not None:
            key = f"${api_key_env}" if api_key_env is not None else "api_key"
            raise InvalidModelSetting(
                f"{spec}: --base-url carries a user name and password (sent as basic "
                f"authentication) and {key} holds an API key (sent as a bearer token), but a "
                "request has one Authorization header and httpx sends only the basic one: take "
                "the credentials out of --base-url or leave out --api-key-env"
            )
        self.base_url = endpoint.shown
        """The base URL as it may be shown and recorded (credentials hidden)."""
        self.timeout_s = timeout_s
        self.first_token_timeout_s = first_token_timeout_s
        self.stream = stream
        self.retry = retry if retry is not None else RetryPolicy()
        self.events = events or ModelEvents()
        self._connection = ChatConnection(
            spec, endpoint, api_key=api_key, api_key_env=api_key_env, concurrency=concurrency,
            timeout_s=timeout_s, first_token_timeout_s=first_token_timeout_s, stream=stream,
        )
        self.url = self._connection.url
        self._secrets = (endpoint, api_key)
        self._max_tokens_field = max_tokens_field
        self._stream_options: Literal["untried", "accepted", "refused"] = "untried"
        self._limit = AdaptiveLimit(concurrency)
        self._limit.on_change = self._learned_changed
        self._rng = random.Random()
        self._answered = False
        self._server_errors_before_answer = 0
        self._start_notice: str | None = None
        """Said before the first request, once the run starts from what an earlier one learned."""

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
        if request.response_format is not None:
            body["response_format"] = dict(request.response_format)
        if self.stream:
            body["stream"] = True
            if self._stream_options != "refused":
                body["stream_options"] = dict(STREAM_OPTIONS)
        return body

    async def generate(self, request: GenerationRequest) -> Generation:
        """Send one request, retrying transient failures; see the module docstring for errors."""
        if self._start_notice is not None:
            self.events.notice(self._start_notice)
        self._start_notice = None
        place = Place(self._limit)
        await place.take()
        try:
            return await self._generate(request, place)
        except ModelUnavailable as error:
            raise ModelUnavailable(self._redact(str(error))) from None
        finally:
            place.give_back()

    async def _generate(self, request: GenerationRequest, place: Place) -> Generation:
        """The retry loop of :meth:`generate`, run while holding ``place`` in flight."""
        body = self.payload(request)
        started = time.perf_counter()
        attempts = retries = 0
        dropped_stream_options = False
        while True:
            attempts += 1
            sent = self._limit.send()
            outcome = await self._connection.attempt(body, self._crowded)
            total_s = time.perf_counter() - started
            if isinstance(outcome, Generation):
                self._answered = True
                self._limit.answered(sent)
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
            # cut to make room for another request of ours: no failure of this one
            made_room = outcome.made_room or (outcome.interrupted and self._crowded())
            self._check_ever_answered(outcome)
            random_refusal = self._shed_load(outcome, sent, made_room)
            counted = not made_room
            if not outcome.retryable or (counted and retries == self.retry.max_retries):
                if outcome.interrupted and self._connection.stream:
                    return await self._ask_whole(body, outcome, attempts, started)
                raise self._final_error(outcome, attempts, total_s)
            # a random refusal says nothing of the next try: its wait does not grow
            wait_s = self.retry.delay_s(0 if random_refusal else retries, outcome.retry_after_s,
                                        self._rng)
            self._announce(request, attempts, outcome.reason, wait_s)
            await self._back_off(wait_s, place)
            retries += counted

    async def _ask_whole(self, body: dict[str, Any], cut: AttemptFailure, attempts: int,
                         started: float) -> Generation:
        """Once every streamed attempt was cut off: the request once more without streaming,
        whose answer, or whose error, the server sends whole. llama-cpp-python's server fails a
        prompt longer than its context after it has begun a stream (HTTP 200), which then just
        ends; asked whole, it answers 500 with why (``Requested tokens (2366) exceed context
        window of 2048``)."""
        outcome = await self._connection.attempt(body, self._crowded, stream=False)
        total_s = time.perf_counter() - started
        if isinstance(outcome, Generation):
            return replace(outcome, attempts=attempts + 1, total_s=total_s)
        raise ModelError(
            f"gave up after {attempts} streamed attempts ({self._redact(cut.message)}); asked "
            f"once more without streaming: {self._redact(outcome.message)}",
            attempts=attempts + 1, total_s=total_s)

    async def _back_off(self, wait_s: float, place: Place) -> None:
        """Wait before the next attempt without a place in flight, then queue for one again
        before the requests not yet sent: the retry counts against the limit as it is then."""
        place.give_back()
        await asyncio.sleep(wait_s)
        await place.take(first=True)

    def _shed_load(self, failure: AttemptFailure, sent: Attempt, made_room: bool) -> bool:
        """Lower the requests in flight when ``failure`` says the server has too many; True
        for a random refusal (a 429 or 503 while the server takes as many at once)."""
        cuts, in_flight, random_refusal = self._limit.cuts, self._limit.in_flight, False
        if made_room or (failure is self._connection.no_first_token and self._crowded()):
            self._limit.cut(sent.era)
        elif failure.status in OVERLOAD_STATUSES:
            random_refusal, in_flight = self._limit.refused(sent), sent.in_flight
        if self._limit.cuts == cuts or cuts > 0:  # told at the first cut only
            return random_refusal
        self.events.notice(
            f"{self.base_url} cut answers short or refused them under load "
            f"({self._redact(failure.reason)} with {in_flight} requests in flight): now "
            f"{self._limit.limit} at a time, down to 1 if it goes on, and more again as "
            "answers arrive (--concurrency sets the most)"
        )
        return random_refusal

    def _check_ever_answered(self, failure: AttemptFailure) -> None:
        """Stop when every attempt so far, and enough of them, got a server error."""
        if self._answered:
            return
        status = failure.status or 0
        if status < 500 or status in OVERLOAD_STATUSES or failure.retry_after_s is not None:
            self._server_errors_before_answer = 0
            return
        self._server_errors_before_answer += 1
        if self._server_errors_before_answer >= NEVER_ANSWERED_ATTEMPTS:
            raise ModelUnavailable(
                f"{self.spec}: {self.url} answered each of the first "
                f"{self._server_errors_before_answer} attempts with HTTP {status} and has answered "
                f"no request yet ({failure.message}); check that the server behind --base-url is "
                "up, and its log"
            )

    def _announce(self, request: GenerationRequest, attempt: int, reason: str, wait_s: float) -> None:
        """Tell :attr:`events` that ``attempt`` failed and another follows."""
        self.events.retry(RetryEvent(request.sample_id, attempt, self._redact(reason), wait_s))

    def _crowded(self) -> bool:
        """Whether other requests of this backend are in flight."""
        return self._limit.in_flight > 1

    def _redact(self, text: str) -> str:
        """``text`` with the API key and the base URL's secrets hidden."""
        endpoint, api_key = self._secrets
        return endpoint.redact(text, [api_key])

    def _final_error(self, failure: AttemptFailure, attempts: int, total_s: float) -> Exception:
        """The error to raise when ``failure`` ends the request."""
        if failure.connect_failed:
            return ModelUnavailable(
                f"{self.spec}: {self.base_url} stopped answering ({failure.message}, "
                f"{attempts} attempts)"
            )
        message = self._redact(failure.message)
        if failure.retryable:
            message = f"gave up after {attempts} attempts; last error: {message}"
        return ModelError(message, attempts=attempts, total_s=total_s)

    def report(self) -> dict[str, Any]:
        """How far the requests in flight were lowered, if the server ever shed load, refused
        requests at random, or the run started from what an earlier one learned."""
        limit = self._limit
        if not (limit.cuts or limit.random_refusals or limit.started < limit.ceiling):
            return {}
        return {"concurrency": {"asked": limit.ceiling, "started": limit.started,
                                "lowest": limit.lowest, "final": limit.limit, "cuts": limit.cuts,
                                "random_refusals": limit.random_refusals}}

    def learned(self) -> dict[str, Learned]:
        """How many requests at once the server took, once the run has had to learn it."""
        limit = self._limit
        if not (limit.cuts or limit.started < limit.ceiling):
            return {}
        return {self.base_url: limit.learned}

    def start_from(self, learned: Mapping[str, Learned]) -> None:
        """Start at the limit an earlier run learned for this server, if any, and say so
        before the first request."""
        earlier = learned.get(self.base_url)
        if earlier is None or earlier.limit >= self._limit.ceiling:
            return
        self._limit.start_from(earlier)
        self._start_notice = (
            f"{self.base_url} took {earlier.limit} request{'s' if earlier.limit > 1 else ''} at "
            "a time when this run directory last asked it (servers.json): starting there, and "
            f"more again as answers arrive (--concurrency {self._limit.ceiling} the most)"
        )

    def _learned_changed(self) -> None:
        if self.on_learned is not None:
            self.on_learned()

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._connection.aclose()

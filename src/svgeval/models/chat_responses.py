"""Reading a Chat Completions server's answers: streamed events, whole responses, errors.

Pure functions over bytes and :class:`httpx.Response`, used by
:class:`~svgeval.models.openai_compat.OpenAICompatibleModel`: one ``data:`` event of a stream,
an answer assembled from its events (text, finish reason, usage), a non-streamed completion, and
one-line descriptions of HTTP errors and failed connections.
"""

from __future__ import annotations

import json
import socket
from dataclasses import dataclass, field
from typing import Any

import httpx

from svgeval.errors import SvgevalError
from svgeval.models.base import Generation, ModelError

USAGE_FIELDS = ("prompt_tokens", "completion_tokens", "total_tokens")
"""The token counts kept from a server's ``usage`` object."""


@dataclass(frozen=True)
class AttemptFailure:
    """A failed attempt: why (briefly, for retry notices, and in full), and what may follow.

    ``retryable`` is False for failures of the request itself (400, malformed answers);
    ``retry_after_s`` is how long the server asked us to wait; ``connect_failed`` marks a server
    that could not be reached; ``status`` is the HTTP status, if the server sent one;
    ``interrupted`` marks an answer that ended early (a stream cut off, a dropped connection);
    ``made_room`` one that the server ended to serve another of our requests (a stream whose
    ``[DONE]`` came without a finish reason while others were in flight).
    """

    reason: str
    message: str
    retryable: bool = True
    retry_after_s: float | None = None
    connect_failed: bool = False
    status: int | None = None
    interrupted: bool = False
    made_room: bool = False


class AttemptFailed(SvgevalError):
    """Ends an attempt early (a wait ran out, the stream carried an error) with a AttemptFailure."""

    def __init__(self, failure: AttemptFailure) -> None:
        super().__init__(failure.message)
        self.failure = failure


def decoded_event(data: bytes) -> str:
    """One ``data:`` payload as text; ModelError if it is not UTF-8."""
    try:
        return data.decode("utf-8").strip()
    except UnicodeDecodeError as exc:
        raise ModelError(f"the server streamed an event that is not UTF-8: {exc}") from exc


@dataclass
class StreamedAnswer:
    """A streamed answer as its events arrive: the text so far, finish reason and usage.

    ``started`` is True from the first event on; ``done`` once ``[DONE]`` arrived (events
    after it are ignored).
    """

    parts: list[str] = field(default_factory=list)
    finish_reason: str | None = None
    usage: dict[str, Any] = field(default_factory=dict)
    started: bool = False
    done: bool = False

    def add(self, data: str) -> None:
        """Take in one event's payload; ModelError if it is not a chat completion chunk.

        An error event (``{"error": ...}``, sent by servers that fail mid-answer) raises
        AttemptFailed, so the request is retried.
        """
        self.started = True
        if data == "[DONE]" or self.done:
            self.done = True
            return
        try:
            chunk = json.loads(data)
        except ValueError as exc:
            raise ModelError(f"the server streamed an event that is not JSON: {exc}") from exc
        if not isinstance(chunk, dict):
            raise ModelError(f"the server streamed an event that is not an object: {data[:100]}")
        if chunk.get("error") is not None:
            detail = _one_line(_error_message(chunk) or data)
            raise AttemptFailed(
                AttemptFailure("error event", f"the server streamed an error: {detail}")
            )
        for choice in chunk.get("choices") or []:
            if isinstance(choice, dict) and choice.get("index", 0) == 0:
                self._add_choice(choice)
        self.usage = _usage(chunk.get("usage")) or self.usage

    def _add_choice(self, choice: dict[str, Any]) -> None:
        """Append the delta's content (``reasoning_content`` and other fields are not text)."""
        delta = choice.get("delta")
        if isinstance(delta, dict):
            self.parts.append(_content_text(delta.get("content")))
        if isinstance(choice.get("finish_reason"), str):
            self.finish_reason = choice["finish_reason"]

    def outcome(self) -> Generation | AttemptFailure:
        """The answer once the stream has ended (latency and attempts are the caller's).

        A stream that ended without ``[DONE]`` counts as whole if it said why the answer ended.
        """
        if not self.done and self.finish_reason is None:
            return AttemptFailure(
                "stream cut off", "the stream ended before the answer was complete", interrupted=True
            )
        return Generation("".join(self.parts), usage=self.usage, finish_reason=self.finish_reason)


def parse_completion(response: httpx.Response) -> Generation:
    """The text and token usage of a 200 answer; ModelError if it is not a chat completion."""
    try:
        body = response.json()
    except ValueError as exc:
        raise ModelError(f"the server answered 200 with a body that is not JSON: {exc}") from exc
    choices = body.get("choices") if isinstance(body, dict) else None
    if not choices or not isinstance(choices, list) or not isinstance(choices[0], dict):
        raise ModelError(f"the server answered 200 without choices: {error_detail(response)}")
    message = choices[0].get("message") or {}
    finish_reason = choices[0].get("finish_reason")
    return Generation(
        text=_content_text(message.get("content")),
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


def error_detail(response: httpx.Response) -> str:
    """The server's own error message on one line (OpenAI, vLLM and FastAPI shapes); for an
    HTML error page, its status line's reason (``Unsupported method ('POST')``)."""
    if "html" in response.headers.get("content-type", ""):
        return _one_line(response.reason_phrase or "an HTML page")
    try:
        body = response.json()
    except ValueError:
        body = None
    detail = _error_message(body) if isinstance(body, dict) else None
    return _one_line(detail or response.text or response.reason_phrase or "no details")


def is_json(response: httpx.Response) -> bool:
    """Whether the response's content type is JSON (``application/json``, ``...+json``)."""
    media_type = str(response.headers.get("content-type", "")).split(";")[0].strip().lower()
    return media_type == "application/json" or media_type.endswith("+json")


def _error_message(body: dict[str, Any]) -> str | None:
    """The message of an error body, if it has one."""
    error = body.get("error")
    detail = error.get("message") if isinstance(error, dict) else error
    detail = detail or body.get("message") or body.get("detail")
    return str(detail) if detail else None


def _one_line(text: str, limit: int = 300) -> str:
    """``text`` with its whitespace collapsed, cut to ``limit`` characters."""
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= limit else one_line[: limit - 3] + "..."


def connect_failure_reason(exc: BaseException) -> str:
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

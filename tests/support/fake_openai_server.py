"""A small OpenAI-compatible HTTP server for tests, with scripted replies and injected faults.

It listens on 127.0.0.1 only, on a free port, and serves each connection in its own thread. It
answers ``POST /v1/chat/completions`` (a JSON answer, or server-sent events for ``"stream":
true``) and ``GET /v1/models``. Use it as a context manager:

    with FakeOpenAIServer(reply=echo_svg, faults=fail_first(1, Fault.http_error(503))) as server:
        model = load_model("openai-compatible:fake-model", base_url=server.base_url)
        ...
        assert len(server.chat_requests) == 2

``reply`` maps the request body to the answer text (None gives ``"content": null``). ``faults``
maps each recorded chat request to a :class:`Fault` or None; :func:`fail_first` and
:func:`on_requests` build the common plans. ``stop()`` (or leaving the ``with`` block) closes
every connection, wakes up slow answers and waits for all server threads to end.

To imitate a slow local server such as llama.cpp, give it ``slots=1`` (requests queue for the
one generation slot) and ``token_delay_s`` (the time each token takes). A token is a word with
the whitespace before it, and ``max_tokens`` (or ``max_completion_tokens``) smaller than the
answer's token count cuts the answer off with ``finish_reason: "length"``.
"""

from __future__ import annotations

import contextlib
import functools
import json
import re
import socket
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, cast, final

Reply = Callable[[dict[str, Any]], "str | None"]


@dataclass(frozen=True)
class Fault:
    """What the server does instead of answering normally.

    It first waits ``delay_s`` seconds, then drops the connection without an answer
    (``disconnect``), answers with the HTTP error ``status`` (plus ``Retry-After`` when
    ``retry_after`` is set), or, when neither is set, gives the normal answer late.

    With ``after_tokens`` set, a streamed answer sends that many tokens (fewer than the answer
    has) before the fault strikes: it goes silent for ``delay_s``, then drops the connection,
    sends an error event with ``status`` and ends the stream, or goes on with the answer. A
    request that is not streamed gets the fault before its answer, as without ``after_tokens``.
    """

    status: int | None = None
    retry_after: str | None = None
    delay_s: float = 0.0
    disconnect: bool = False
    after_tokens: int | None = None

    @classmethod
    def http_error(cls, status: int, retry_after: str | None = None) -> Fault:
        """Answer with an OpenAI-style error body and this status."""
        return cls(status=status, retry_after=retry_after)

    @classmethod
    def slow(cls, delay_s: float) -> Fault:
        """Give the normal answer after ``delay_s`` seconds."""
        return cls(delay_s=delay_s)

    @classmethod
    def stall(cls, after_tokens: int, seconds: float) -> Fault:
        """Stream ``after_tokens`` tokens, send nothing for ``seconds``, then finish the answer."""
        return cls(delay_s=seconds, after_tokens=after_tokens)

    @classmethod
    def dropped_connection(cls, after_tokens: int | None = None) -> Fault:
        """Close the connection without answering (the client sees a reset), or mid-stream."""
        return cls(disconnect=True, after_tokens=after_tokens)

    @classmethod
    def error_event(cls, status: int, after_tokens: int) -> Fault:
        """Stream ``after_tokens`` tokens, then an error event, and end the stream."""
        return cls(status=status, after_tokens=after_tokens)


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server received it.

    ``index`` counts chat requests in arrival order; ``attempt`` counts earlier chat requests
    with the same messages (0 for the first time a prompt is seen). Both are -1 for other paths.
    """

    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any] | None
    received_at: float = field(default_factory=time.monotonic)
    index: int = -1
    attempt: int = -1
    fault: Fault | None = None


FaultPlan = Callable[[RecordedRequest], "Fault | None"]


def fail_first(count: int, fault: Fault) -> FaultPlan:
    """A plan that answers the first ``count`` attempts of each distinct prompt with ``fault``."""
    return lambda request: fault if request.attempt < count else None


def on_requests(schedule: Mapping[int, Fault]) -> FaultPlan:
    """A plan that applies ``schedule[i]`` to the i-th chat request (0-based, arrival order)."""
    return lambda request: schedule.get(request.index)


def message_text(message: Mapping[str, Any]) -> str:
    """The text of a chat message whose content is a string or a list of parts."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def message_images(message: Mapping[str, Any]) -> list[str]:
    """The image URLs of a chat message (``data:image/png;base64,...`` for svgeval's images),
    in order; none for a message whose content is a string."""
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [
        str(part["image_url"]["url"])
        for part in content
        if isinstance(part, dict) and part.get("type") == "image_url"
    ]


def echo_svg(body: Mapping[str, Any]) -> str:
    """Reply with the first ``<svg>...</svg>`` of the last user message, in an svg fence.

    The first, because task prompts put the input SVG before any example of the answer format.
    """
    user_messages = [m for m in body.get("messages", []) if m.get("role") == "user"]
    text = message_text(user_messages[-1]) if user_messages else ""
    found = re.search(r"<svg\b.*?</svg>", text, flags=re.DOTALL)
    return f"```svg\n{found.group(0)}\n```" if found else "There is no SVG in the prompt."


@final
class FakeOpenAIServer:
    """A real HTTP server on 127.0.0.1 that imitates the Chat Completions API.

    ``delay_s`` slows every answer down (for concurrency tests); ``api_key`` makes the server
    answer 401 to requests without ``Authorization: Bearer <api_key>``; ``models`` makes it
    answer 404 to requests for other models (None accepts any model).

    ``slots`` bounds the answers generated at once (None: no bound); the others wait in a queue
    without a byte sent. ``token_delay_s`` is the time each token of an answer takes, streamed
    or not. A streamed answer starts with a ``reasoning_content`` delta when ``reasoning`` is
    set, and ends with a usage chunk when the request asks for one with ``stream_options``
    (unless ``send_usage`` is False). ``reject_stream_options`` answers 400 to requests that
    carry ``stream_options``, as some servers do.
    """

    def __init__(
        self,
        reply: Reply = echo_svg,
        faults: FaultPlan | None = None,
        *,
        delay_s: float = 0.0,
        api_key: str | None = None,
        models: Sequence[str] | None = None,
        slots: int | None = None,
        token_delay_s: float = 0.0,
        reasoning: str | None = None,
        send_usage: bool = True,
        reject_stream_options: bool = False,
    ) -> None:
        self.reply = reply
        self.faults = faults
        self.delay_s = delay_s
        self.api_key = api_key
        self.models = list(models) if models is not None else None
        self.token_delay_s = token_delay_s
        self.reasoning = reasoning
        self.send_usage = send_usage
        self.reject_stream_options = reject_stream_options
        self.max_in_flight = 0
        self._in_flight = 0
        self._slots = threading.Semaphore(slots) if slots is not None else None
        self._generations: list[RecordedRequest] = []
        self._delivered: set[int] = set()
        self._requests: list[RecordedRequest] = []
        self._attempts: Counter[str] = Counter()
        self._chat_count = 0
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._http = _Server(self)
        self._thread = threading.Thread(
            target=self._http.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def base_url(self) -> str:
        """The URL to give a client, ending in ``/v1``."""
        return f"http://127.0.0.1:{self._http.server_address[1]}/v1"

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        """The ``POST /v1/chat/completions`` requests received so far."""
        return [request for request in self.requests if request.index >= 0]

    @property
    def generations(self) -> list[RecordedRequest]:
        """The chat requests whose answer the server started to generate, in start order."""
        with self._lock:
            return list(self._generations)

    @property
    def abandoned_generations(self) -> list[RecordedRequest]:
        """Started generations that were never delivered whole (the client had gone away)."""
        with self._lock:
            return [r for r in self._generations if r.index not in self._delivered]

    def start(self) -> FakeOpenAIServer:
        """Start serving in a background thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, drop open connections and wait for every server thread to end."""
        self._stopping.set()
        if self._thread.is_alive():
            self._http.shutdown()
            self._thread.join()
        self._http.drop_connections()
        self._http.server_close()  # joins the connection threads

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def record(self, request: RecordedRequest) -> RecordedRequest:
        """Number a chat request, choose its fault, and store it."""
        with self._lock:
            if request.body is not None and request.path.partition("?")[0].endswith(
                    "/chat/completions"):
                prompt = json.dumps(request.body.get("messages"), sort_keys=True)
                request = replace(request, index=self._chat_count, attempt=self._attempts[prompt])
                self._chat_count += 1
                self._attempts[prompt] += 1
                if self.faults is not None:
                    request = replace(request, fault=self.faults(request))
            self._requests.append(request)
            return request

    @contextlib.contextmanager
    def in_flight(self) -> Iterator[None]:
        """Count a chat request as in flight while the block runs (and track the maximum)."""
        with self._lock:
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
        try:
            yield
        finally:
            with self._lock:
                self._in_flight -= 1

    def wait(self, seconds: float) -> bool:
        """Sleep up to ``seconds``; True if the server is stopping (the caller should give up)."""
        return self._stopping.wait(seconds) if seconds > 0 else self._stopping.is_set()

    @contextlib.contextmanager
    def generating(self, request: RecordedRequest) -> Iterator[bool]:
        """Hold a generation slot while the block runs; yields False if the server is stopping.

        The generation counts as started on entry; call :meth:`delivered` once it is sent.
        """
        while self._slots is not None and not self._slots.acquire(timeout=0.05):
            if self._stopping.is_set():
                yield False
                return
        try:
            with self._lock:
                self._generations.append(request)
            yield True
        finally:
            if self._slots is not None:
                self._slots.release()

    def delivered(self, request: RecordedRequest) -> None:
        """Count the generation for ``request`` as sent whole. Called once its tokens are all
        generated (streamed: all sent) and before the end of the answer goes out, so a client
        holding the whole answer always finds it counted: counted after the last write, a test
        that looked right after its client returned could still see it abandoned (seen once in
        three full suites)."""
        with self._lock:
            self._delivered.add(request.index)


class _Server(ThreadingHTTPServer):
    """The socket server: one thread per connection, all joined on close."""

    daemon_threads = False
    block_on_close = True

    def __init__(self, app: FakeOpenAIServer) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.app = app
        self._connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._connections_lock:
            self._connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._connections_lock:
            self._connections.discard(request)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Stay quiet about clients that went away (e.g. timed out): tests make them do so."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)

    def drop_connections(self) -> None:
        """Shut every open connection so that threads blocked reading from one return."""
        with self._connections_lock:
            connections = list(self._connections)
        for connection in connections:
            with contextlib.suppress(OSError):  # already closed by the client
                connection.shutdown(socket.SHUT_RDWR)


class _Handler(BaseHTTPRequestHandler):
    """Answers one connection's requests (HTTP/1.1 keep-alive, idle connections time out)."""

    protocol_version = "HTTP/1.1"
    timeout = 10.0
    disable_nagle_algorithm = True  # headers and body go out in two writes

    @property
    def app(self) -> FakeOpenAIServer:
        return cast(_Server, self.server).app

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet."""

    def do_GET(self) -> None:
        self.app.record(RecordedRequest("GET", self.path, self._headers(), None))
        if self.path.rstrip("/") == "/v1/models":
            names = self.app.models if self.app.models is not None else ["fake-model"]
            data = [{"id": name, "object": "model", "owned_by": "fake"} for name in names]
            self._send_json(200, {"object": "list", "data": data})
        else:
            self._send_error(404, f"no route for GET {self.path}")

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw)
        except ValueError:
            self._send_error(400, "the body is not JSON")
            return
        request = self.app.record(RecordedRequest("POST", self.path, self._headers(), body))
        if self.path.partition("?")[0].rstrip("/") != "/v1/chat/completions":  # route by path
            self._send_error(404, f"no route for POST {self.path}")
            return
        with self.app.in_flight():
            try:
                self._answer_chat(request)
            except OSError:  # the client gave up (e.g. timed out) before we answered
                self.close_connection = True

    def _answer_chat(self, request: RecordedRequest) -> None:
        app, body, fault = self.app, request.body or {}, request.fault
        authorized = request.headers.get("authorization") == f"Bearer {app.api_key}"
        if app.api_key is not None and not authorized:
            self._send_error(401, "Incorrect API key provided.", code="invalid_api_key")
            return
        if app.models is not None and body.get("model") not in app.models:
            message = f"The model `{body.get('model')}` does not exist."
            self._send_error(404, message, code="model_not_found")
            return
        if app.reject_stream_options and "stream_options" in body:
            self._send_error(400, "Unrecognized request argument supplied: stream_options")
            return
        streamed = bool(body.get("stream"))
        mid_stream = streamed and fault is not None and fault.after_tokens is not None
        if self._fault_before_answer(None if mid_stream else fault):
            return
        with app.generating(request) as generating:
            if not generating:
                self.close_connection = True
            elif streamed:
                self._stream(request, _Answer.of(body, app.reply(body)))
            else:
                self._answer_whole(request, _Answer.of(body, app.reply(body)))

    def _fault_before_answer(self, fault: Fault | None) -> bool:
        """Wait the server's delay and strike with ``fault``; True when no answer follows."""
        if self.app.wait(fault.delay_s if fault is not None else self.app.delay_s):
            self.close_connection = True
            return True
        if fault is not None and fault.disconnect:
            self._drop_connection()
            return True
        if fault is not None and fault.status is not None:
            extra = {"Retry-After": fault.retry_after} if fault.retry_after is not None else {}
            self._send_error(fault.status, f"injected fault: HTTP {fault.status}", headers=extra)
            return True
        return False

    def _fault_mid_stream(self, fault: Fault) -> bool:
        """Stall, then drop the connection or end the stream with an error event; True if so."""
        if self.app.wait(fault.delay_s):
            raise ConnectionAbortedError("the server is stopping")
        if fault.disconnect:
            self._drop_connection()
            return True
        if fault.status is not None:
            message = f"injected fault: HTTP {fault.status}"
            self._send_event({"error": {"message": message, "code": fault.status}})
            self._send_chunk(b"")
            return True
        return False

    def _drop_connection(self) -> None:
        self.close_connection = True
        self.connection.shutdown(socket.SHUT_RDWR)

    def _answer_whole(self, request: RecordedRequest, answer: _Answer) -> None:
        """Send the answer as one JSON object once all of its tokens are "generated"."""
        if self.app.wait(self.app.token_delay_s * len(answer.tokens)):
            self.close_connection = True
            return
        self.app.delivered(request)  # before the bytes go out: see FakeOpenAIServer.delivered
        self._send_json(200, _completion(request, answer))

    def _stream(self, request: RecordedRequest, answer: _Answer) -> None:
        """Send the answer as server-sent events, one token at a time, ending with ``[DONE]``.

        Raises OSError when the client has gone away (the caller closes the connection).
        """
        app, body, fault = self.app, request.body or {}, request.fault
        strike_at = fault.after_tokens if fault is not None else None
        chunk = functools.partial(_chunk, request)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self._send_chunk(b": keep-alive\n\n")  # an SSE comment, as some servers send
        self._send_event(chunk({"role": "assistant", "content": ""}))
        if app.reasoning is not None:
            self._send_event(chunk({"reasoning_content": app.reasoning}))
        for sent, token in enumerate(answer.tokens):
            if fault is not None and sent == strike_at and self._fault_mid_stream(fault):
                return
            if app.wait(app.token_delay_s):
                raise ConnectionAbortedError("the server is stopping")
            self._send_event(chunk({"content": token}))
        app.delivered(request)  # every token is out; before the end: see FakeOpenAIServer.delivered
        self._send_event(chunk({}, finish_reason=answer.finish_reason))
        stream_options = body.get("stream_options") or {}
        if app.send_usage and stream_options.get("include_usage"):
            self._send_event({**chunk({}), "choices": [], "usage": answer.usage})
        self._send_chunk(b"data: [DONE]\n\n")
        self._send_chunk(b"")  # the last chunk of a chunked body is empty

    def _send_event(self, payload: Mapping[str, Any]) -> None:
        self._send_chunk(b"data: " + json.dumps(payload).encode() + b"\n\n")

    def _send_chunk(self, data: bytes) -> None:
        """Write one piece of a ``Transfer-Encoding: chunked`` body."""
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def _headers(self) -> dict[str, str]:
        return {name.lower(): value for name, value in self.headers.items()}

    def _send_error(
        self, status: int, message: str, *, code: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        error = {"message": message, "type": "invalid_request_error", "code": code}
        self._send_json(status, {"error": error}, headers)

    def _send_json(
        self, status: int, payload: Any, headers: Mapping[str, str] | None = None
    ) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


@dataclass(frozen=True)
class _Answer:
    """The answer to one request, cut to its token limit: tokens, finish reason and usage."""

    tokens: list[str]
    finish_reason: str
    usage: dict[str, int]
    null: bool = False

    @classmethod
    def of(cls, body: Mapping[str, Any], text: str | None) -> _Answer:
        """The answer ``text`` gives to ``body`` (words count as tokens)."""
        tokens = re.findall(r"\s*\S+", text or "")
        limit = body.get("max_completion_tokens", body.get("max_tokens"))
        finish_reason = "stop"
        if isinstance(limit, int) and limit < len(tokens):
            tokens, finish_reason = tokens[:limit], "length"
        prompt = sum(len(message_text(m).split()) for m in body.get("messages", []))
        usage = {
            "prompt_tokens": prompt,
            "completion_tokens": len(tokens),
            "total_tokens": prompt + len(tokens),
        }
        return cls(tokens, finish_reason, usage, null=text is None)

    @property
    def content(self) -> str | None:
        return None if self.null else "".join(self.tokens)


def _completion(request: RecordedRequest, answer: _Answer) -> dict[str, Any]:
    """A Chat Completions answer, all in one JSON object."""
    message = {"role": "assistant", "content": answer.content}
    return {
        "id": f"chatcmpl-fake-{request.index}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": (request.body or {}).get("model"),
        "choices": [{"index": 0, "message": message, "finish_reason": answer.finish_reason}],
        "usage": answer.usage,
    }


def _chunk(
    request: RecordedRequest, delta: Mapping[str, Any], finish_reason: str | None = None
) -> dict[str, Any]:
    """One ``chat.completion.chunk`` event of a streamed answer."""
    return {
        "id": f"chatcmpl-fake-{request.index}",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": (request.body or {}).get("model"),
        "choices": [{"index": 0, "delta": dict(delta), "finish_reason": finish_reason}],
    }

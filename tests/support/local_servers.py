"""Local HTTP servers that behave as real ones do, each run in its own process on 127.0.0.1.

Unlike :mod:`fake_openai_server` (scripted faults in a thread of the test), these imitate what
servers people point svgeval at really do, in the way they do it:

* ``gateway``: a stdlib server that ignores ``"stream": true`` and answers every chat request
  with one ``application/json`` completion, as simple servers and several gateways do. With
  ``--fail-every N`` every N-th call fails instead, in turn: a JSON 500, an HTML 502 from a
  proxy, a dropped connection. ``--always STATUS`` answers every call with that status (a
  backend that is down), ``--max-prompt-chars N`` refuses longer prompts with 400 as llama.cpp's
  server does past its context size, ``--echo-credentials`` quotes the request's path and
  ``Authorization`` header in its error messages, and ``--reply half-emoji`` answers with a
  lone surrogate escape (``"\\ud83d"``), half of an emoji, inside the SVG. ``--delay S`` is
  each answer's time; ``--capacity N`` answers at most N calls at once and refuses the others
  with 429 (a saturated server); ``--refuse P --seed S`` refuses a fraction P of the calls at
  random with 429 (the ``random.Random(S)`` draws in call order: a gateway whose upstream
  refuses now and then, whatever the load); ``--retry-after S`` adds that header to the 429s.
* ``interrupting``: llama-cpp-python's server (``python -m llama_cpp.server``) with its default
  ``interrupt_requests``, without the model. The same stack (Starlette under uvicorn,
  sse-starlette's ``EventSourceResponse`` with ``sep="\\n"``, two anyio locks) and the
  same rule, read from ``llama_cpp/server/app.py`` of llama-cpp-python 0.3.36: a streamed
  request answers 200 at once, then queues for the model holding the outer lock; after each
  chunk it sends, the running stream checks that lock and, when another request waits, sends
  ``data: [DONE]`` and cancels itself. Its chunks have the shape of
  ``llama_chat_format._convert_text_completion_chunks_to_chat`` (a role chunk, content chunks,
  a last chunk with ``finish_reason``); it ignores ``stream_options`` and sends no usage.
  ``--max-prompt-chars N`` fails longer prompts as that server fails a prompt past its
  context: a streamed request answers 200, then its body ends without an event (the error is
  raised inside the stream), and one not streamed answers 400 with OpenAI's context message.
* ``python -m http.server`` itself (see :func:`http_server`), which answers 501 to every POST.

Each server prints ``PORT <n>`` once it listens; :func:`running` starts one, waits for that
line and stops it afterwards. ``--log FILE`` appends one line per chat call (JSON: call index,
sample text digest, what was done; the gateway adds the request path and ``Authorization``),
for tests that count generations and check what was sent.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import random
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from support.fake_openai_server import echo_svg

HERE = Path(__file__).resolve().parent
HALF_EMOJI_SVG = '<svg xmlns="http://www.w3.org/2000/svg"><text>\ud83d</text></svg>'
"""An answer holding a lone high surrogate: half of an emoji, as a truncating server sends."""


@dataclass(frozen=True)
class Server:
    """A server process and the base URL to give svgeval (ending in ``/v1``)."""

    process: subprocess.Popen[str]
    base_url: str


@contextlib.contextmanager
def running(kind: str, *options: str, start_timeout_s: float = 60.0) -> Iterator[Server]:
    """Start ``python -m support.local_servers KIND OPTIONS...`` (from ``tests/``); stop it when the block ends. The
    ``interrupting`` server needs the dev and rewards extras (sse-starlette, uvicorn): the test
    is skipped without them."""
    if kind == "interrupting":
        for module in ("sse_starlette", "uvicorn", "starlette"):
            pytest.importorskip(module)
    command = [sys.executable, "-m", "support.local_servers", kind, *options]
    with _process(command, start_timeout_s, r"^PORT (\d+)$") as (process, port):
        yield Server(process, f"http://127.0.0.1:{port}/v1")


@contextlib.contextmanager
def http_server(directory: Path) -> Iterator[Server]:
    """``python -m http.server`` serving ``directory``: GET works, every POST is answered 501."""
    command = [sys.executable, "-u", "-m", "http.server", "0", "--bind", "127.0.0.1",
               "--directory", str(directory)]
    with _process(command, 30.0, r"port (\d+)") as (process, port):
        yield Server(process, f"http://127.0.0.1:{port}/v1")


@contextlib.contextmanager
def _process(
    command: list[str], start_timeout_s: float, port_pattern: str
) -> Iterator[tuple[subprocess.Popen[str], int]]:
    """Run ``command`` until the block ends, once a line of its stdout gave the port."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               text=True, cwd=HERE.parent)
    try:
        port = _read_port(process, start_timeout_s, port_pattern)
        yield process, port
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _read_port(process: subprocess.Popen[str], timeout_s: float, pattern: str) -> int:
    assert process.stdout is not None
    found: list[int] = []

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            match = re.search(pattern, line.strip())
            if match:
                found.append(int(match.group(1)))
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout_s)
    if not found:
        raise RuntimeError(f"server {process.args} did not start within {timeout_s:g} s")
    return found[0]


def free_port() -> int:
    """A port nothing listens on (for an unreachable endpoint)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def read_log(path: Path) -> list[dict[str, Any]]:
    """The calls a server logged with ``--log``."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def prompt_digest(body: dict[str, Any]) -> str:
    """A short digest of a request's messages: which sample a call was for."""
    text = json.dumps(body.get("messages"), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class _CallLog:
    """Numbers the chat calls and appends one JSON line each to a file (when given)."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.count = 0
        self.lock = threading.Lock()

    def next(self) -> int:
        with self.lock:
            self.count += 1
            return self.count

    def write(self, index: int, body: dict[str, Any], outcome: str, **extra: Any) -> None:
        if self.path is None:
            return
        line = json.dumps({"call": index, "prompt": prompt_digest(body), "outcome": outcome,
                           **extra})
        with self.lock, open(self.path, "a", encoding="utf-8") as log:
            log.write(line + "\n")


def _reply(body: dict[str, Any], kind: str) -> str:
    return f"```svg\n{HALF_EMOJI_SVG}\n```" if kind == "half-emoji" else echo_svg(body)


def _completion(text: str, model: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-local", "object": "chat.completion", "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
    }


def serve_gateway(options: argparse.Namespace) -> None:
    """The ``gateway`` server: one JSON completion for every request, streamed or not."""
    calls = _CallLog(options.log)
    faults = ("http-500", "http-502", "drop")
    draws = random.Random(options.seed)
    busy = [0]  # calls being answered now
    busy_lock = threading.Lock()

    def refusal() -> str | None:
        """``refused`` at random, ``saturated`` beyond the capacity, else None (and the call
        counts as busy until :func:`done`)."""
        with busy_lock:
            if options.refuse and draws.random() < options.refuse:
                return "refused"
            if options.capacity and busy[0] >= options.capacity:
                return "saturated"
            busy[0] += 1
            return None

    def done() -> None:
        with busy_lock:
            busy[0] -= 1

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet."""

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            index = calls.next()
            fault = (faults[(index // options.fail_every) % len(faults)]
                     if options.fail_every and index % options.fail_every == 0 else None)
            prompt_chars = len(json.dumps(body.get("messages")))
            if options.always:
                fault = f"http-{options.always}"
            elif options.max_prompt_chars and prompt_chars > options.max_prompt_chars:
                fault = "too-long"
            elif fault is None:
                fault = refusal()
            calls.write(index, body, fault or "answered", path=self.path,
                        authorization=self.headers.get("Authorization"))
            if fault == "drop":
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
            elif fault == "http-502":
                page = b"<html><head><title>502 Bad Gateway</title></head></html>"
                self._send(502, "text/html", page)
            elif fault == "too-long":  # llama.cpp's server, asked more than its context holds
                self._error(400, "the request exceeds the available context size, try "
                                 "increasing it", "exceed_context_size_error")
            elif fault in ("refused", "saturated"):
                self._error(429, f"{fault}: try again later", "rate_limit_error")
            elif fault is not None:
                self._error(int(fault.removeprefix("http-")), "upstream failed", "server_error")
            else:
                try:
                    time.sleep(options.delay)
                    answer = _completion(_reply(body, options.reply), body.get("model"))
                    self._send(200, "application/json", json.dumps(answer).encode())
                finally:
                    done()

        def _error(self, status: int, message: str, kind: str) -> None:
            if options.echo_credentials:  # as debugging proxies do
                message += (f" (request {self.path}, authorization "
                            f"{self.headers.get('Authorization')})")
            error = {"error": {"message": message, "type": kind, "code": status}}
            self._send(status, "application/json", json.dumps(error).encode())

        def _send(self, status: int, media_type: str, data: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", media_type)
            if status == 429 and options.retry_after is not None:
                self.send_header("Retry-After", f"{options.retry_after:g}")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    class Server(ThreadingHTTPServer):
        request_queue_size = 128  # as uvicorn's 2048: connections sent together all get in
        daemon_threads = True

    server = Server(("127.0.0.1", 0), Handler)
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


def serve_interrupting(options: argparse.Namespace) -> None:
    """The ``interrupting`` server: llama-cpp-python's streaming and interrupt rule."""
    import anyio
    import uvicorn
    from sse_starlette.sse import EventSourceResponse
    from starlette.applications import Starlette
    from starlette.concurrency import iterate_in_threadpool
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    calls = _CallLog(options.log)
    outer_lock, inner_lock = anyio.Lock(), anyio.Lock()

    async def model_turn() -> Any:
        # a waiting request holds the outer lock until the model is free: the running stream
        # sees it held and gives way
        await outer_lock.acquire()
        release_outer = True
        try:
            await inner_lock.acquire()
            try:
                outer_lock.release()
                release_outer = False
                yield None
            finally:
                inner_lock.release()
        finally:
            if release_outer:
                outer_lock.release()

    def chunks(body: dict[str, Any]) -> Iterator[dict[str, Any]]:
        text = _reply(body, options.reply)
        pieces = [text[i:i + options.chars_per_token]
                  for i in range(0, len(text), options.chars_per_token)]
        base = {"id": "chatcmpl-local", "model": body.get("model"), "created": int(time.time()),
                "object": "chat.completion.chunk"}
        yield {**base, "choices": [{"index": 0, "delta": {"role": "assistant"},
                                    "logprobs": None, "finish_reason": None}]}
        for piece in pieces:
            time.sleep(options.token_delay)  # the model computing the next token
            yield {**base, "choices": [{"index": 0, "delta": {"content": piece},
                                        "logprobs": None, "finish_reason": None}]}
        yield {**base, "choices": [{"index": 0, "delta": {}, "logprobs": None,
                                    "finish_reason": "stop"}]}

    async def publish(request: Request, send: Any, body: dict[str, Any], index: int) -> None:
        async with send:
            async with contextlib.asynccontextmanager(model_turn)():
                cut = await generate(request, send, body, index)
            if cut:
                # the model is free; the cut body's end can still come late (a loaded
                # machine, a proxy between)
                await anyio.sleep(options.linger_after_cut)
                raise anyio.get_cancelled_exc_class()()  # as the real one: cancel itself

    async def generate(request: Request, send: Any, body: dict[str, Any], index: int) -> bool:
        """Stream the answer; True when it was cut to make room for a waiting request."""
        async for chunk in iterate_in_threadpool(chunks(body)):
            await send.send({"data": json.dumps(chunk)})
            if await request.is_disconnected():
                raise anyio.get_cancelled_exc_class()()
            if options.interrupt_requests and outer_lock.locked():
                # after the last chunk the answer is whole, interrupted or not
                finished = chunk["choices"][0]["finish_reason"] is not None
                calls.write(index, body, "completed" if finished else "interrupted")
                await send.send({"data": "[DONE]"})
                return True
        calls.write(index, body, "completed")
        await send.send({"data": "[DONE]"})
        return False

    async def chat(request: Request) -> Any:
        body = await request.json()
        index = calls.next()
        prompt = len(json.dumps(body.get("messages")))
        if options.max_prompt_chars and prompt > options.max_prompt_chars:
            calls.write(index, body, "too long")
            if not body.get("stream"):
                return JSONResponse({"error": {"message": (
                    f"This model's maximum context length is {options.max_prompt_chars} tokens. "
                    f"However, you requested {prompt} tokens."), "type": "invalid_request_error"}},
                    status_code=400)

            async def fails() -> AsyncIterator[dict[str, str]]:
                raise ValueError(f"Requested tokens ({prompt}) exceed context window")
                yield {}  # a generator: the error comes once the 200 has gone

            return EventSourceResponse(fails(), sep="\n")
        if body.get("stream"):
            send, receive = anyio.create_memory_object_stream[dict[str, str]](10)
            return EventSourceResponse(
                receive, data_sender_callable=lambda: publish(request, send, body, index),
                sep="\n",
            )
        async with contextlib.asynccontextmanager(model_turn)():
            text = "".join(chunk["choices"][0]["delta"].get("content", "")
                           for chunk in chunks(body))
            calls.write(index, body, "completed")
            return JSONResponse(_completion(text, body.get("model")))

    app = Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"])])

    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)

    async def main() -> None:
        listening = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listening.bind(("127.0.0.1", 0))
        listening.listen(128)  # connections wait in the backlog until uvicorn accepts them
        print(f"PORT {listening.getsockname()[1]}", flush=True)
        await server.serve(sockets=[listening])

    anyio.run(main)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("kind", choices=["gateway", "interrupting"])
    parser.add_argument("--log", help="append one JSON line per chat call to this file")
    parser.add_argument("--reply", choices=["echo", "half-emoji"], default="echo")
    parser.add_argument("--fail-every", type=int, default=0, help="gateway: fail every N-th call")
    parser.add_argument("--delay", type=float, default=0.0, help="gateway: seconds per answer")
    parser.add_argument("--always", type=int, help="gateway: answer every call with this status")
    parser.add_argument("--capacity", type=int, default=0,
                        help="gateway: answer at most N calls at once, refuse more with 429")
    parser.add_argument("--refuse", type=float, default=0.0,
                        help="gateway: refuse this fraction of the calls at random with 429")
    parser.add_argument("--seed", type=int, default=0, help="gateway: seed of the refusals")
    parser.add_argument("--retry-after", type=float,
                        help="gateway: the Retry-After seconds sent with each 429")
    parser.add_argument("--max-prompt-chars", type=int, default=0,
                        help="refuse longer prompts, as llama.cpp's and llama-cpp-python's "
                             "servers do")
    parser.add_argument("--echo-credentials", action="store_true",
                        help="gateway: error messages quote the request path and Authorization")
    parser.add_argument("--token-delay", type=float, default=0.002,
                        help="interrupting: seconds per token")
    parser.add_argument("--chars-per-token", type=int, default=8)
    parser.add_argument("--linger-after-cut", type=float, default=0.0,
                        help="interrupting: seconds between a cut stream's [DONE] and its end")
    parser.add_argument("--no-interrupt-requests", dest="interrupt_requests",
                        action="store_false", help="interrupting: as --interrupt_requests False")
    options = parser.parse_args(argv)
    {"gateway": serve_gateway, "interrupting": serve_interrupting}[options.kind](options)


if __name__ == "__main__":
    main()

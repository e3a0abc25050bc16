"""``svgeval serve-rewards``: a batch HTTP endpoint for remote trainers (FastAPI + uvicorn).

``POST /rewards`` takes ``{"items": [{"prompt", "completion", "reference", "task"}, ...]}`` and
answers ``{"rewards": [...], "components": [...], "failures": [...]}`` in the items' order
(rewards in [penalty, 1], None for a reference that cannot be scored). Every other answer is a
JSON object whose ``detail`` is one line saying what went wrong:

* 422: the body is not JSON, or a field is missing, unknown (misspelled) or of the wrong type
  (a number or NaN where text goes), or an item's task is unknown, or missing while the server
  scores with ``by_task``; ``errors`` lists each problem (the offending values are not echoed);
* 413: the body is larger than ``max_body_bytes`` (refused from its ``Content-Length`` before it
  is read, or as soon as a body sent without one grows past it), or holds more items than
  ``max_queue``;
* 503 with ``Retry-After``: the items admitted but not yet scored would pass ``max_queue``;
  503 also when a reward cannot be computed here (its weights cannot be loaded);
* 500: a failure of svgeval itself.

Requests are scored concurrently and fairly (:class:`~svgeval.rewards.fair.FairScorer`), so a
large or slow request does not hold the others. ``GET /health`` draws a tiny SVG through the
render workers: 200 ``{"status": "ok", "pending", "max_queue", "render_ms"}`` when it comes out
right, else 503 ``{"status": "unavailable", "detail", ...}``.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from svgeval.metrics.registry import MetricUnavailable
from svgeval.rewards.fair import FairScorer
from svgeval.rewards.pipeline import RewardResult
from svgeval.rewards.presets import RewardPreset

JSON_TYPE = b"application/json"
REQUEST_SHAPE = '{"items": [{"prompt", "completion", "reference", "task"}, ...]}'


class RewardBackend(Protocol):
    """What the server needs from a scorer (:class:`~svgeval.rewards.scorer.RewardScorer`)."""

    def score(self, completions: Sequence[str], references: Sequence[str],
              tasks: Sequence[str | None] | None = None) -> list[RewardResult]: ...

    def preset_for(self, task: str | None) -> RewardPreset: ...

    def check_render(self) -> str | None: ...


@dataclass(frozen=True)
class ServerSettings:
    """The server's limits."""

    max_queue: int = 8192
    """Items admitted but not yet scored, over all requests; more gets 503 (413 in one request)."""
    max_body_bytes: int = 64 * 1024 * 1024
    """Largest request body; a larger one gets 413 before it is read into memory."""
    retry_after_s: float = 1.0
    threads: int = 4
    """Requests' pieces scored at the same time (see :mod:`~svgeval.rewards.fair`)."""
    piece_items: int = 64
    """Items in a piece."""
    health_timeout_s: float = 30.0
    """``/health`` answers 503 when its test render takes longer than this."""


class RewardItem(BaseModel):
    """One completion to score."""

    model_config = ConfigDict(extra="forbid")

    prompt: str = ""
    """Not used by the rendering rewards; kept for logging and future prompt-aware rewards."""
    completion: str
    reference: str
    """Reference SVG code (or caption for captioning tasks)."""
    task: str | None = None
    """Task or preset name; needed when the server runs the ``by_task`` preset."""


class RewardRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    items: list[RewardItem]


class RewardResponse(BaseModel):
    rewards: list[float | None]
    components: list[dict[str, float]]
    failures: list[str | None]


class _Admission:
    """Counts admitted, unfinished items; refuses what would exceed the bound."""

    def __init__(self, limit: int) -> None:
        self.limit, self.pending = limit, 0
        self._lock = threading.Lock()

    def admit(self, n: int) -> bool:
        with self._lock:
            if self.pending + n > self.limit:
                return False
            self.pending += n
            return True

    def release(self, n: int) -> None:
        with self._lock:
            self.pending -= n


class BodyLimit:
    """ASGI middleware: a request body over ``max_bytes`` gets 413, refused from its declared
    ``Content-Length`` before any of it is read, or once the bytes received pass the limit.
    A body within the limit is read whole, then handed to the app; one sent without a
    ``Content-Type`` is read as JSON (as ``requests.post(url, data=text)`` sends it)."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        declared = headers.get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await self._refuse(scope, send, f"declares {declared.decode('latin-1')} bytes")
            return
        body = bytearray()
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.max_bytes:
                await self._refuse(scope, send, f"passed {self.max_bytes} bytes")
                return
        if b"content-type" not in headers:
            scope = {**scope, "headers": [*scope["headers"], (b"content-type", JSON_TYPE)]}
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": bytes(body), "more_body": False}

        await self.app(scope, replay, send)

    async def _refuse(self, scope: Scope, send: Send, what: str) -> None:
        response = JSONResponse(
            {"detail": f"request body too large: it {what}, the limit is {self.max_bytes} bytes "
                       "(serve-rewards --max-body-mb); send fewer items per request"}, 413)
        await response(scope, _no_body, send)


async def _no_body() -> Message:
    return {"type": "http.disconnect"}


def _where(loc: Sequence[Any]) -> str:
    """``("body", "items", 3, "task")`` as ``items[3].task``."""
    out = ""
    for part in loc[1:] if loc and loc[0] == "body" else loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "body"


def _problem(error: dict[str, Any]) -> str:
    where = _where(error.get("loc", ()))
    kind = error.get("type", "")
    if kind == "json_invalid":
        return f"the body is not valid JSON ({error.get('ctx', {}).get('error', 'decode error')})"
    if kind == "extra_forbidden":
        return f"{where}: unknown field"
    if kind == "missing":
        return f"{where}: missing"
    if where == "body":
        return "the body must be a JSON object sent as Content-Type: application/json"
    return f"{where}: {error.get('msg', 'invalid')}"


async def _invalid(request: Request, exc: Exception) -> JSONResponse:
    """422 saying what is wrong where, without the values sent (which may be huge or NaN):
    ``detail`` one line (unknown fields first: they explain the missing ones), ``errors`` each."""
    errors = exc.errors() if isinstance(exc, RequestValidationError) else []
    errors = sorted(errors, key=lambda e: e.get("type") != "extra_forbidden")
    problems = [_problem(e) for e in errors] or ["invalid request"]
    detail = "; ".join(problems[:3]) + ("; ..." if len(problems) > 3 else "")
    if any(e.get("type") in ("extra_forbidden", "missing") for e in errors):
        detail += f" (a request is {REQUEST_SHAPE})"
    return JSONResponse({"detail": detail, "errors": problems[:20]}, 422)


async def _internal(request: Request, exc: Exception) -> JSONResponse:
    return JSONResponse({"detail": f"internal error: {type(exc).__name__}: {exc}"[:500]}, 500)


def _task_problem(backend: RewardBackend, items: Sequence[RewardItem]) -> str | None:
    """Why some item's task cannot be scored, or None."""
    checked: set[str | None] = set()
    for index, item in enumerate(items):
        if item.task in checked:
            continue
        try:
            backend.preset_for(item.task)
        except ValueError as error:
            return f"items[{index}].task: {error}"
        checked.add(item.task)
    return None


def create_app(backend: RewardBackend, settings: ServerSettings | None = None) -> FastAPI:
    """The FastAPI app around ``backend`` (usually a :class:`RewardScorer`)."""
    limits = settings or ServerSettings()
    app = FastAPI(title="svgeval rewards")
    app.add_middleware(BodyLimit, max_bytes=limits.max_body_bytes)
    app.add_exception_handler(RequestValidationError, _invalid)
    app.add_exception_handler(Exception, _internal)
    admission = _Admission(limits.max_queue)
    fair = FairScorer(backend.score, limits.threads, limits.piece_items)
    app.router.on_shutdown.append(lambda: threading.Thread(target=fair.close).start())
    health_check: list[asyncio.Task[str | None]] = []

    @app.get("/health")
    async def health() -> Any:
        if not health_check or health_check[0].done():  # one test render at a time
            health_check[:] = [asyncio.ensure_future(asyncio.to_thread(backend.check_render))]
        started = time.perf_counter()
        try:
            problem = await asyncio.wait_for(asyncio.shield(health_check[0]),
                                             limits.health_timeout_s)
        except asyncio.TimeoutError:
            problem = f"no test render within {limits.health_timeout_s:g} s"
        body: dict[str, Any] = {"status": "ok" if problem is None else "unavailable",
                                "pending": admission.pending, "max_queue": limits.max_queue}
        if problem is None:
            body["render_ms"] = round(1000 * (time.perf_counter() - started), 1)
            return body
        body["detail"] = f"the render workers cannot render: {problem}"
        return JSONResponse(body, 503)

    @app.post("/rewards", response_model=RewardResponse)
    async def rewards(request: RewardRequest) -> Any:
        items = request.items
        problem = _task_problem(backend, items)
        if problem is not None:
            return JSONResponse({"detail": problem, "errors": [problem]}, 422)
        if len(items) > limits.max_queue:
            return JSONResponse({"detail": f"{len(items)} items in one request; at most "
                                           f"{limits.max_queue} (serve-rewards --max-queue)"}, 413)
        if not admission.admit(len(items)):
            return JSONResponse({"detail": "reward queue full, retry later"}, 503,
                                headers={"Retry-After": str(math.ceil(limits.retry_after_s))})
        try:
            results = await fair.score([i.completion for i in items],
                                       [i.reference for i in items], [i.task for i in items])
        except MetricUnavailable as error:
            return JSONResponse({"detail": str(error)}, 503)
        finally:
            admission.release(len(items))
        return RewardResponse(rewards=[r.reward for r in results],
                              components=[dict(r.components) for r in results],
                              failures=[r.failure for r in results])

    return app

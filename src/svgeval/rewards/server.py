"""``svgeval serve-rewards``: a batch HTTP endpoint for remote trainers (FastAPI + uvicorn).

``POST /rewards`` takes ``{"items": [{"prompt", "completion", "reference", "task"}, ...]}`` and
answers ``{"rewards": [...], "components": [...], "failures": [...]}`` in the items' order
(rewards in [penalty, 1], None for a reference that cannot be scored). ``GET /health`` answers
``{"status": "ok", "pending": n, "max_queue": m}``.

Batches are scored one at a time by a single scoring thread (the scorer itself renders in
parallel worker processes). Admission is bounded: a request whose items would take the number
of admitted but unfinished items past ``max_queue`` is answered at once with 503 and a
``Retry-After`` header instead of queueing without end; a single request larger than
``max_queue`` gets 413.
"""

from __future__ import annotations

import asyncio
import math
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from fastapi import FastAPI
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from svgeval.rewards.scorer import RewardResult

ScoreFunction = Callable[[Sequence[str], Sequence[str], Sequence[str | None]], list[RewardResult]]


class RewardItem(BaseModel):
    """One completion to score."""

    prompt: str = ""
    """Not used by the rendering rewards; kept for logging and future prompt-aware rewards."""
    completion: str
    reference: str
    """Reference SVG code (or caption for captioning tasks)."""
    task: str | None = None
    """Task or preset name; needed when the server runs the ``by_task`` preset."""


class RewardRequest(BaseModel):
    items: list[RewardItem] = Field(default_factory=list)


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


def create_app(score: ScoreFunction, max_queue: int = 8192,
               retry_after_s: float = 1.0) -> FastAPI:
    """The FastAPI app around ``score`` (usually :meth:`RewardScorer.score`)."""
    app = FastAPI(title="svgeval rewards")
    admission = _Admission(max_queue)
    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="svgeval-rewards")
    app.router.on_shutdown.append(lambda: executor.shutdown(wait=False))

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return {"status": "ok", "pending": admission.pending, "max_queue": max_queue}

    @app.post("/rewards", response_model=RewardResponse)
    async def rewards(request: RewardRequest) -> Any:
        items = request.items
        if len(items) > max_queue:
            return JSONResponse({"detail": f"at most {max_queue} items per request"}, 413)
        if not admission.admit(len(items)):
            return JSONResponse({"detail": "reward queue full, retry later"}, 503,
                                headers={"Retry-After": str(math.ceil(retry_after_s))})
        try:
            results = await asyncio.get_running_loop().run_in_executor(
                executor, score, [i.completion for i in items], [i.reference for i in items],
                [i.task for i in items])
        finally:
            admission.release(len(items))
        return RewardResponse(rewards=[r.reward for r in results],
                              components=[dict(r.components) for r in results],
                              failures=[r.failure for r in results])

    return app

"""How many requests the runner asks a model at once.

``--concurrency`` bounds the requests in flight. A backend that paces its own requests
(:attr:`~svgeval.models.base.Model.paces_requests`: the HTTP backends, whose limit of attempts in
flight falls when the server sheds load, see :mod:`svgeval.models.adaptive`) is handed every
request the runner has ready, so that a request waiting to retry holds no place and the others
go meanwhile; any other backend is asked ``--concurrency`` at a time.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from svgeval.models.base import Model


def request_slots(model: Model, concurrency: int) -> contextlib.AbstractAsyncContextManager[Any]:
    """What a request to ``model`` holds while it is asked: one of ``concurrency`` slots, or
    nothing for a backend that paces its own requests."""
    if model.paces_requests:
        return contextlib.nullcontext()
    return asyncio.Semaphore(concurrency)

"""Fixtures for the model backend tests: a fake OpenAI-compatible server."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from support.fake_openai_server import FakeOpenAIServer

StartServer = Callable[..., FakeOpenAIServer]


@pytest.fixture(params=[True, False], ids=["stream", "whole"])
def stream(request: pytest.FixtureRequest) -> bool:
    """Run a backend test with a streamed answer and with a whole JSON answer."""
    flag: bool = request.param
    return flag


@pytest.fixture
def fake_openai() -> Iterator[StartServer]:
    """Start fake servers with ``fake_openai(reply=..., faults=...)``; all stop after the test."""
    servers: list[FakeOpenAIServer] = []

    def start(**options: Any) -> FakeOpenAIServer:
        server = FakeOpenAIServer(**options).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()

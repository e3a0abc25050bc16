"""Shared fixtures: one render pool per test session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from svgeval.svg.isolation import Renderer


@pytest.fixture(scope="session")
def renderer() -> Iterator[Renderer]:
    with Renderer(workers=2, timeout_s=10.0) as pool:
        yield pool

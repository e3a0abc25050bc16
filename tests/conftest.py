"""Shared fixtures: where the official releases live, and one render pool per test session."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from svgeval.svg.isolation import Renderer

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"


def shared_release(name: str) -> Path:
    """Path of an official release under ../shared/data; skips the test when it is absent."""
    path = SHARED_DATA / name
    if not path.is_dir():
        pytest.skip(f"official data not present at {path}")
    return path


@pytest.fixture(scope="session")
def renderer() -> Iterator[Renderer]:
    with Renderer(workers=2, timeout_s=10.0) as pool:
        yield pool

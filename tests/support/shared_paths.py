"""Where the official releases live for the tests: ``<repo>/../shared/data``."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED_DATA = REPO.parent / "shared" / "data"


def shared_release(name: str) -> Path:
    """Path of an official release under ../shared/data; skips the test when it is absent."""
    path = SHARED_DATA / name
    if not path.is_dir():
        pytest.skip(f"official data not present at {path}")
    return path

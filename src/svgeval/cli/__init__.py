"""The ``svgeval`` command line; :data:`app` is the whole command (imported when first asked for).
"""

from __future__ import annotations

from typing import Any

__all__ = ["app"]


def __getattr__(name: str) -> Any:
    if name == "app":
        from svgeval.cli.root import app

        return app
    raise AttributeError(f"module 'svgeval.cli' has no attribute {name!r}")

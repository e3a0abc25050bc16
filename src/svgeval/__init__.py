"""svgeval: benchmarks and metrics for models that read, edit and write SVG.

The Python API is :func:`svgeval.evaluate` (a task on a model, from a script or a notebook;
:mod:`svgeval.api`). It and ``svgeval.__version__`` are loaded when first asked for, not on
import: ``svgeval run`` starts its render workers' server before anything else
(:mod:`svgeval.cli.main`), and even reading the package metadata costs start-up time
(``bench/RESULTS.md``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from svgeval.api import Evaluation, evaluate

__all__ = ["Evaluation", "evaluate"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from svgeval import api

        return getattr(api, name)
    if name != "__version__":
        raise AttributeError(f"module 'svgeval' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("svgeval")
    except PackageNotFoundError:  # running from a source tree without an install
        return "0.0.0+unknown"

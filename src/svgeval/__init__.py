"""svgeval: benchmarks and metrics for models that read, edit and write SVG.

``svgeval.__version__`` is read from the installed package's metadata when first asked for,
not on import: ``svgeval run`` starts its render workers' server before anything else
(:mod:`svgeval.launch`), and reading the metadata takes a twentieth of a second.
"""

from __future__ import annotations


def __getattr__(name: str) -> str:
    if name != "__version__":
        raise AttributeError(f"module 'svgeval' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("svgeval")
    except PackageNotFoundError:  # running from a source tree without an install
        return "0.0.0+unknown"

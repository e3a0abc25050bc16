"""svgeval: benchmarks and metrics for models that read, edit and write SVG."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("svgeval")
except PackageNotFoundError:  # running from a source tree without an install
    __version__ = "0.0.0+unknown"

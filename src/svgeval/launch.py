"""The ``svgeval`` command: start the render workers' server first, then the command line.

``svgeval run`` and ``svgeval score`` render; their worker server
(:mod:`svgeval.svg.forkserver`) starts before svgeval is imported, so the two overlap on two
cores. Every other command starts as it is.
"""

from __future__ import annotations

import sys

RENDERING_COMMANDS = frozenset({"run", "score"})


def main() -> None:
    """Entry point of the ``svgeval`` script."""
    if RENDERING_COMMANDS.intersection(sys.argv[1:2]):
        from svgeval.svg.forkserver import start_early

        start_early()
    from svgeval.cli import app

    app()

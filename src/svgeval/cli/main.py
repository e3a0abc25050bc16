"""The ``svgeval`` command: start the render workers' server first, then the command line.

``svgeval run`` and ``svgeval score`` render; their worker server
(:mod:`svgeval.svg.forkserver`) starts before svgeval is imported, so the two overlap on two
cores, and they get a command line of those two commands alone (:mod:`svgeval.cli.run`), which
does not import the data builders, reports and other suites' tools. Every other command starts
the whole command line.

Once the command line is imported, its objects (modules, classes, pydantic schemas: about
50,000) are moved out of the garbage collector's view (:func:`gc.freeze`): they live as long as
the process, yet each full collection walked them, and so did the one at exit, which took
0.1-0.15 s of a 2 s SVGEditBench run.
"""

from __future__ import annotations

import gc
import sys

RENDERING_COMMANDS = frozenset({"run", "score"})


def renderer_named(argv: list[str]) -> str | None:
    """The renderer ``svgeval run`` will use (``--renderer X`` or ``--renderer=X``, else
    CairoSVG, its default), read before the command line is parsed: the render workers' server
    then imports that renderer alone. None for ``score``, which renders as the run did."""
    from svgeval.svg.forkserver import DEFAULT_RENDERER

    if argv[1:2] != ["run"]:
        return None
    for index, argument in enumerate(argv):
        if argument.startswith("--renderer="):
            return argument.partition("=")[2]
        if argument == "--renderer" and index + 1 < len(argv):
            return argv[index + 1]
    return DEFAULT_RENDERER


def main() -> None:
    """Entry point of the ``svgeval`` script."""
    if RENDERING_COMMANDS.intersection(sys.argv[1:2]):
        from svgeval.svg.forkserver import start_early

        start_early(renderer_named(sys.argv))
        from svgeval.cli.run import add_run_commands, new_app

        app = new_app()
        add_run_commands(app)
    else:
        from svgeval.cli.commands import app
    gc.freeze()
    app()

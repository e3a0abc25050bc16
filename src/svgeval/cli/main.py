"""The ``svgeval`` command: start the render workers' server first, then the command line.

``svgeval run`` and ``svgeval score`` render; their worker server
(:mod:`svgeval.render.forkserver`) starts before svgeval is imported, so the two overlap on two
cores. The command line (:mod:`svgeval.cli.root`) then imports the command asked for alone.

Once the command line is imported, its objects are moved out of the garbage collector's view
(:func:`gc.freeze`); ``run`` and ``score`` freeze again once they have imported the runner
(modules, classes, pydantic schemas: about 50,000 objects). They live as long as the process,
yet each full collection walked them, and so did the one at exit, a noticeable share of a
short run (``bench/RESULTS.md``).
"""

from __future__ import annotations

import gc
import sys

RENDERING_COMMANDS = frozenset({"run", "score"})
HELP_FLAGS = frozenset({"-h", "--help"})


def renderer_named(argv: list[str]) -> str | None:
    """The renderer ``svgeval run`` will use (``--renderer X`` or ``--renderer=X``, else
    CairoSVG, its default), read before the command line is parsed: the render workers' server
    then imports that renderer alone. None for ``score``, which renders as the run did."""
    from svgeval.render.forkserver import DEFAULT_RENDERER

    if argv[1:2] != ["run"]:
        return None
    for index, argument in enumerate(argv):
        if argument.startswith("--renderer="):
            return argument.partition("=")[2]
        if argument == "--renderer" and index + 1 < len(argv):
            return argv[index + 1]
    return DEFAULT_RENDERER


def asks_for_help(argv: list[str]) -> bool:
    """Whether the command line asks for a command's help (``svgeval run --help``), which
    renders nothing: no render workers' server is started for it."""
    return bool(HELP_FLAGS.intersection(argv[2:]))


def main() -> None:
    """Entry point of the ``svgeval`` script."""
    if RENDERING_COMMANDS.intersection(sys.argv[1:2]) and not asks_for_help(sys.argv):
        from svgeval.render.forkserver import start_early

        start_early(renderer_named(sys.argv))
    from svgeval.cli.errors import bugs_reported
    from svgeval.cli.root import app

    gc.freeze()
    with bugs_reported():
        app()

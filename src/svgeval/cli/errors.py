"""One-line errors for the command line: what happened and what to do, and exit code 1.

Every message the command line prints goes out through :func:`say` (errors through
:func:`user_errors`): as plain text, so that a message is printed exactly as written. Rich would
otherwise read ``[models]`` in ``pip install -e ".[models]"`` as a style tag and drop it, and
``:m:`` in ``openai-compatible:m: ...`` as an emoji code. Tables build their cells as
:class:`~rich.text.Text` for the same reason.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

import typer
from rich.console import Console
from rich.text import Text

console = Console(stderr=True, emoji=False, highlight=False)
"""Standard error: progress, notes, warnings and errors."""


def stdout_console() -> Console:
    """A console for results: at its natural width when stdout is not a terminal, so that a
    table piped to a log is never cut at 80 columns."""
    if sys.stdout.isatty():
        return Console(emoji=False, highlight=False)
    return Console(width=10_000, emoji=False, highlight=False)


class UserError(Exception):
    """An error the user can fix; printed as one line."""


def say(message: str, to: Console = console) -> None:
    """Print ``message`` as written (no markup, no emoji codes), on one line however long."""
    to.print(Text(message), soft_wrap=True)


def _known_errors() -> tuple[type[RuntimeError], ...]:
    """The errors of svgeval's layers that are the user's to fix, printed as their one line.
    Imported when an error is caught, not with the command line: ``svgeval --help`` imports
    none of these modules, and a command that raised one of them has imported it already."""
    from svgeval.models.base import ModelUnavailable
    from svgeval.render.backends import RendererUnavailable
    from svgeval.render.pool import RenderWorkersLost
    from svgeval.runner import RunConflict
    from svgeval.runner.executors import ExecutorError
    from svgeval.runner.metric_memory import MetricsOutOfMemory
    from svgeval.tasks.download import DataUnavailable

    return (RunConflict, ModelUnavailable, DataUnavailable, ExecutorError,
            RendererUnavailable, RenderWorkersLost, MetricsOutOfMemory)


def _print_error(message: str) -> None:
    console.print(Text.assemble(("error:", "red"), " ", message), soft_wrap=True)


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn the errors a user can cause into one line on stderr and exit code 1."""
    try:
        yield
    except UserError as error:
        _print_error(str(error))
        raise typer.Exit(1) from None
    except RuntimeError as error:  # each of the layers' errors is one
        if not isinstance(error, _known_errors()):
            raise
        _print_error(str(error))
        raise typer.Exit(1) from None
    except (KeyError, ValueError, FileNotFoundError) as error:
        message = error.args[0] if isinstance(error, KeyError) and error.args else error
        _print_error(str(message))
        raise typer.Exit(1) from None
    except KeyboardInterrupt:
        say("interrupted: finished samples are kept; continue with --resume")
        raise typer.Exit(130) from None

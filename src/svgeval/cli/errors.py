"""One-line errors for the command line: what happened and what to do, and exit code 1.

Every message the command line prints goes out through :func:`say` (errors through
:func:`user_errors`): as plain text, so that a message is printed exactly as written. Rich would
otherwise read ``[models]`` in ``pip install -e ".[models]"`` as a style tag and drop it, and
``:m:`` in ``openai-compatible:m: ...`` as an emoji code. Tables build their cells as
:class:`~rich.text.Text` for the same reason.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import typer
from rich.console import Console
from rich.text import Text

from svgeval.models.base import ModelUnavailable
from svgeval.runner import RunConflict
from svgeval.runner.executors import ExecutorError
from svgeval.svg.renderers import RendererUnavailable
from svgeval.svg.worker_pool import RenderWorkersLost
from svgeval.tasks.download import DataUnavailable

console = Console(stderr=True, emoji=False, highlight=False)
"""Standard error: progress, notes, warnings and errors."""


class UserError(Exception):
    """An error the user can fix; printed as one line."""


def say(message: str, to: Console = console) -> None:
    """Print ``message`` as written (no markup, no emoji codes), on one line however long."""
    to.print(Text(message), soft_wrap=True)


def _print_error(message: str) -> None:
    console.print(Text.assemble(("error:", "red"), " ", message), soft_wrap=True)


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn the errors a user can cause into one line on stderr and exit code 1."""
    try:
        yield
    except (UserError, RunConflict, ModelUnavailable, DataUnavailable, ExecutorError,
            RendererUnavailable, RenderWorkersLost) as error:
        _print_error(str(error))
        raise typer.Exit(1) from None
    except (KeyError, ValueError, FileNotFoundError) as error:
        message = error.args[0] if isinstance(error, KeyError) and error.args else error
        _print_error(str(message))
        raise typer.Exit(1) from None
    except KeyboardInterrupt:
        say("interrupted: finished samples are kept; continue with --resume")
        raise typer.Exit(130) from None

"""One-line errors for the command line: what happened and what to do, and exit code 1.

Only a :class:`~svgeval.errors.UserError` (the user can fix it) is printed as its one line
(:func:`user_errors`). Any other exception, a builtin ``ValueError`` or ``KeyError`` included,
is a bug: it goes on with its traceback, followed by one line asking to report it
(:func:`bugs_reported`, around the whole command line).

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
from importlib import metadata
from typing import Any

import click
import typer
from rich.console import Console
from rich.text import Text

from svgeval.errors import UserError

__all__ = ["UserError", "bugs_reported", "console", "issue_tracker", "say", "stdout_console",
           "user_errors"]
"""The commands raise :class:`~svgeval.errors.UserError` from here, with the rest."""

console = Console(stderr=True, emoji=False, highlight=False)
"""Standard error: progress, notes, warnings and errors."""


def stdout_console() -> Console:
    """A console for results: at its natural width when stdout is not a terminal, so that a
    table piped to a log is never cut at 80 columns."""
    if sys.stdout.isatty():
        return Console(emoji=False, highlight=False)
    return Console(width=10_000, emoji=False, highlight=False)


def say(message: str, to: Console = console) -> None:
    """Print ``message`` as written (no markup, no emoji codes), on one line however long."""
    to.print(Text(message), soft_wrap=True)


def _print_error(message: str) -> None:
    console.print(Text.assemble(("error:", "red"), " ", message), soft_wrap=True)


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn a :class:`~svgeval.errors.UserError` into its one line on stderr and exit code 1,
    and an interrupt into a note on resuming and exit code 130. Nothing else is caught: a
    builtin error is a bug, whatever its class."""
    try:
        yield
    except UserError as error:
        _print_error(str(error))
        raise typer.Exit(1) from None
    except KeyboardInterrupt:
        say("interrupted: finished samples are kept; continue with --resume")
        raise typer.Exit(130) from None


def issue_tracker() -> str:
    """Where to report a bug: the ``Issues`` (or ``Bug Tracker``) URL of svgeval's package
    metadata, else the words "svgeval's issue tracker"."""
    try:
        urls: list[str] = metadata.metadata("svgeval").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        urls = []
    for entry in urls:
        label, _, url = entry.partition(",")
        if label.strip().lower() in ("issues", "bug tracker"):
            return url.strip()
    return "svgeval's issue tracker"


@contextmanager
def bugs_reported() -> Iterator[None]:
    """Let any exception but the command line's own exits through, and have the line that says
    it is a bug, and where to report it, printed once its traceback is: last, where the eye
    lands (the traceback is printed by :data:`sys.excepthook`, when the exception leaves the
    interpreter)."""
    try:
        yield
    except (click.exceptions.Exit, click.ClickException, click.Abort):
        raise
    except Exception:
        print_traceback = sys.excepthook

        def then_ask_for_a_report(*exc_info: Any) -> None:
            print_traceback(*exc_info)
            say(f"svgeval hit a bug, not a mistake of yours: please report it at "
                f"{issue_tracker()} with the traceback above")

        sys.excepthook = then_ask_for_a_report
        raise

"""MkDocs hook: the CLI reference page, generated from the ``svgeval`` typer app.

``docs/reference/cli.md`` holds :data:`PLACEHOLDER`; this hook replaces it with the Markdown that
typer's own documentation generator (the one behind ``typer MODULE utils docs``) writes for every
command, sub-command group and option, so the page is never kept by hand.

The ``svgeval`` group imports each command only when it is run (``svgeval.cli.root``): until
then ``svgeval --help`` sees a stand-in with the command's summary and no options. The tree is
therefore resolved first, command by command, through click's own ``resolve_command`` (what
running ``svgeval NAME`` does), and then documented. ``tests/test_docs.py`` checks the page
names every command and option of the tree it walks itself.
"""

from __future__ import annotations

from typing import Any

import typer
from typer.cli import get_docs_for_click
from typer.core import TyperGroup

PLACEHOLDER = "<!-- svgeval CLI reference -->"
"""Where the generated reference goes in a page."""


def resolve_tree(group: TyperGroup, ctx: typer.Context) -> None:
    """Load every command of ``group`` and of its sub-groups in place, as running it would."""
    for name in group.list_commands(ctx):
        group.resolve_command(ctx, [name])
        command = group.get_command(ctx, name)
        # a suite's group is built from a typer app without a name: it is known by its
        # entry point's name
        command.name = command.name or name
        if isinstance(command, TyperGroup):
            resolve_tree(command, typer.Context(command, info_name=name, parent=ctx))


def resolved_command() -> tuple[TyperGroup, typer.Context]:
    """The ``svgeval`` command with every command loaded, and its context."""
    from svgeval.cli import app

    command = typer.main.get_command(app)
    assert isinstance(command, TyperGroup)
    ctx = typer.Context(command, info_name="svgeval")
    resolve_tree(command, ctx)
    return command, ctx


def reference_markdown() -> str:
    """The Markdown reference of every command and option, one heading per command."""
    command, ctx = resolved_command()
    return get_docs_for_click(obj=command, ctx=ctx, name="svgeval", indent=1)


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    """MkDocs event: put the generated reference where a page asks for it."""
    if PLACEHOLDER not in markdown:
        return markdown
    return markdown.replace(PLACEHOLDER, reference_markdown())

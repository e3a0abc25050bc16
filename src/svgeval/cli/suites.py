"""The suites' sub-commands: ``svgeval svgenius build-bugfix``, ``svgeval sarena composite``, ...

Each suite offers its command-line tools as a typer app, declared in the ``svgeval.commands``
entry-point group under the sub-command's name (``svgenius = "svgeval.builders.svgenius.cli:app"``),
as a plugin declares its own (:mod:`svgeval.registry`). The command line mounts every declared
app without importing it (:class:`SuiteCommands`): ``svgeval --help`` lists the names from the
packages' metadata, and ``svgeval svgenius ...`` imports the SVGenius tools alone.

Every command of a suite runs inside :func:`~svgeval.cli.errors.user_errors`: a suite raises a
:class:`~svgeval.errors.UserError` (the builders' :class:`~svgeval.builders.BuildInputError`, a
task's :class:`~svgeval.tasks.options.InvalidOption`...) with one line saying what happened and
what to do, and the user sees that line and exit code 1. Any other exception is a bug.
"""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperGroup

from svgeval.cli.errors import user_errors
from svgeval.registry import Registry

COMMANDS: Registry[typer.Typer] = Registry(
    "suite command group", "svgeval.commands", name_of=lambda app: str(app.info.name))
"""Each suite's typer app, by sub-command name."""


def suite_group(name: str) -> TyperGroup:
    """The click group of the suite app ``name``, each of its commands run inside
    :func:`user_errors`."""
    app = COMMANDS.get(name)
    for command in app.registered_commands:
        if command.callback is not None and not getattr(command.callback, "_user_errors", False):
            guarded = user_errors()(command.callback)
            guarded._user_errors = True  # type: ignore[attr-defined]
            command.callback = guarded
    return typer.main.get_group(app)


class SuiteCommands(TyperGroup):
    """The ``svgeval`` group: its own commands, then every declared suite's, imported only when
    one of the suite's commands is asked for."""

    _suites: list[str] | None = None

    def suites(self) -> list[str]:
        """The declared suite apps not shadowed by a command of the group's own."""
        if self._suites is None:
            self._suites = [name for name in COMMANDS.names() if name not in self.commands]
        return self._suites

    # the click types differ between typer versions (typer vendors click since 0.2x): Any
    def list_commands(self, ctx: Any) -> list[str]:
        return [*super().list_commands(ctx), *(n for n in self.suites() if n not in self.commands)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is None and cmd_name in self.suites():
            # listed in help without importing the suite: a stand-in with a generic line
            return TyperGroup(name=cmd_name, help=f"Tools of the {cmd_name} suite.")
        return command

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        if args and args[0] not in self.commands and args[0] in self.suites():
            self.add_command(suite_group(args[0]), args[0])
        return super().resolve_command(ctx, args)

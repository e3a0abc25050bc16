"""The ``svgeval`` command group, whose commands are imported when one is run.

``svgeval --help`` lists each command's name and the first paragraph of its help from
:data:`COMMANDS` (a test checks them against the commands' own), and the suites' sub-commands
from their entry points' names (:class:`~svgeval.cli.suites.SuiteCommands`), importing none of
them. ``svgeval run ...`` imports :mod:`svgeval.cli.run` alone, whose flags need nothing heavier
than typer: the runner, models, tasks and metrics are imported when the command runs.
"""

from __future__ import annotations

import importlib
from typing import Annotated, Any, NamedTuple

import typer
from typer.core import TyperCommand, TyperGroup

from svgeval.cli.suites import SuiteCommands

HELP = {"help_option_names": ["-h", "--help"]}


class LazyCommand(NamedTuple):
    """Where a command lives (``module:attribute``: a command function or a typer app) and the
    first paragraph of its help, shown in ``svgeval --help``."""

    target: str
    summary: str
    group: bool = False
    """Whether the target is a typer app (a group of sub-commands)."""


COMMANDS: dict[str, LazyCommand] = {
    "run": LazyCommand("svgeval.cli.run:run",
                       "Run TASK with a model and write the run directory."),
    "score": LazyCommand("svgeval.cli.run:score",
                         "Re-score the cached responses of a run without calling any model."),
    "export": LazyCommand("svgeval.cli.commands:export",
                          "Write each sample's id and chat messages, to answer them with any "
                          "system and replay them."),
    "list": LazyCommand("svgeval.cli.listing:list_", "List tasks, model backends or metrics."),
    "demo": LazyCommand("svgeval.cli.commands:demo",
                        "SVGEditBench on the built-in icons, or TASK on its built-in sample; "
                        "no server."),
    "report": LazyCommand("svgeval.cli.reports:report",
                          "Write a static HTML report of one run: summary, plots and a gallery "
                          "of every sample."),
    "leaderboard": LazyCommand("svgeval.cli.reports:leaderboard",
                               "Runs side by side: one row per run, one column per metric, the "
                               "best value marked."),
    "compare": LazyCommand("svgeval.cli.reports:compare",
                           "Paired per-sample comparison of two runs of the same task and data."),
    "correlate": LazyCommand("svgeval.cli.validation:correlate",
                             "Correlate metrics with human ratings: instance level with "
                             "bootstrap 95% intervals,\nsystem level over generator means, and "
                             "SVGauge's alpha/beta sweep."),
    "audit": LazyCommand("svgeval.cli.validation:audit",
                         "Run the degenerate baselines (identity, empty, blank, shuffled, "
                         "flipped) and the oracle\non TASK and flag the metrics a degenerate "
                         "answer scores well on."),
    "merge": LazyCommand("svgeval.cli.score:merge",
                         "Merge the run directories of the shards (--shard) of one run into "
                         "--out, without calling\nany model; refused for runs of different "
                         "configurations or shards that disagree. The merge\nis written beside "
                         "--out and renamed to it at the end: a killed merge changes nothing."),
    "serve-rewards": LazyCommand("svgeval.cli.rewards:serve_rewards",
                                 "Serve POST /rewards (batch of prompt, completion, reference, "
                                 "task) and GET /health."),
    "svgauge": LazyCommand("svgeval.cli.validation:svgauge_app",
                           "SVGauge tools (projection fitting).", group=True),
}
"""svgeval's own commands, in the order ``svgeval --help`` lists them."""


def load_command(name: str) -> Any:
    """The click command ``name`` of :data:`COMMANDS`, built by typer as if the command had been
    declared on the ``svgeval`` app itself (same defaults, ``-h`` inherited)."""
    module, _, attribute = COMMANDS[name].target.partition(":")
    target = getattr(importlib.import_module(module), attribute)
    holder = typer.Typer()
    if COMMANDS[name].group:
        holder.add_typer(target, name=name, context_settings=HELP)
    else:
        holder.command(name)(target)
    return typer.main.get_group(holder).commands[name]


class LazyCommands(SuiteCommands):
    """The ``svgeval`` group: :data:`COMMANDS`, each imported when it is run, then the suites'."""

    def suites(self) -> list[str]:
        if self._suites is None:
            self._suites = [name for name in super().suites() if name not in COMMANDS]
        return self._suites

    # the click types differ between typer versions (typer vendors click since 0.2x): Any
    def list_commands(self, ctx: Any) -> list[str]:
        return [*COMMANDS, *(name for name in super().list_commands(ctx) if name not in COMMANDS)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name in COMMANDS and cmd_name not in self.commands:
            # listed in help without importing the command: a stand-in with its summary
            stand_in = TyperGroup if COMMANDS[cmd_name].group else TyperCommand
            return stand_in(name=cmd_name, help=COMMANDS[cmd_name].summary)
        return super().get_command(ctx, cmd_name)

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        if args and args[0] in COMMANDS and args[0] not in self.commands:
            self.add_command(load_command(args[0]), args[0])
        return super().resolve_command(ctx, args)


def new_app(group: type[TyperGroup] | None = None) -> typer.Typer:
    """The ``svgeval`` command with no commands yet (``group``: its click group class)."""
    return typer.Typer(
        add_completion=False,
        no_args_is_help=True,
        context_settings=HELP,
        help="Evaluate models on SVG benchmarks.",
        cls=group,
    )


app = new_app(LazyCommands)


@app.callback(invoke_without_command=True)
def main(
    version: Annotated[bool, typer.Option("--version", help="Print the version.")] = False,
) -> None:
    """svgeval: benchmarks and metrics for models that read, edit and write SVG."""
    if version:
        from svgeval import __version__
        from svgeval.cli.errors import say, stdout_console

        say(__version__, stdout_console())
        raise typer.Exit(0)

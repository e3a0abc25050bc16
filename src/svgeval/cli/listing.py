"""``svgeval list tasks|models|metrics``: what svgeval offers, with each one's options.

Each listing imports the registry it reads and nothing else (``list tasks`` the suites' task
modules, not the metrics' or models' code).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from svgeval.cli.errors import UserError, stdout_console, user_errors
from svgeval.tasks.options import option_infos

if TYPE_CHECKING:
    from svgeval.tasks.base import Task


def _print_suite(out: Console, suite: str, tasks: Sequence[type[Task]]) -> None:
    """One suite of ``svgeval list tasks``: a heading naming its source and preset, then each
    task with its offline baseline models and its ``--set`` options."""
    about = [f"{label}: {value}" for label, value in
             (("source", tasks[0].suite_source), ("preset", tasks[0].preset)) if value]
    detail = f"  ({'; '.join(about)})" if about else ""
    out.print(f"[bold underline]{escape(suite)}[/bold underline]{escape(detail)}", highlight=False)
    for cls in tasks:
        tiers = f" (tiers: {', '.join(cls.tiers)})" if cls.tiers else ""
        out.print(f"  [bold]{escape(cls.name)}[/bold]  {escape(cls.description + tiers)}")
        out.print(f"      baselines: {', '.join(cls.baselines())}", highlight=False)
        for option in option_infos(cls.Options):
            out.print(f"      --set {escape(option.describe())}", highlight=False)


def list_(
    what: Annotated[str, typer.Argument(help="tasks, models or metrics")],
) -> None:
    """List tasks, model backends or metrics."""
    out = stdout_console()
    with user_errors():
        if what == "tasks":
            from svgeval.tasks import tasks_by_suite

            for suite, tasks in tasks_by_suite().items():
                _print_suite(out, suite, tasks)
        elif what == "models":
            from svgeval.models import MODELS

            for kind in MODELS.all().values():
                out.print(f"[bold]{escape(kind.form)}[/bold]  {escape(kind.summary)}")
                for option in option_infos(kind.options) if kind.options else []:
                    out.print(f"      --model-arg {escape(option.describe())}", highlight=False)
        elif what == "metrics":
            from svgeval.metrics.presets import presets_using
            from svgeval.metrics.registry import METRICS

            for info in METRICS.all().values():
                arrow = "higher is better" if info.higher_is_better else "lower is better"
                if info.best_at is not None:
                    arrow = f"best at {info.best_at:g}, worse the farther from it"
                presets = ", ".join(presets_using(info.name)) or "-"
                out.print(
                    f"[bold]{escape(info.name)}[/bold]  "
                    + escape(f"{info.summary}; {info.value_range}, {arrow}; "
                             f"presets: {presets}; source: {info.source}"),
                    highlight=False,
                )
        else:
            raise UserError(f"cannot list {what!r}; choose tasks, models or metrics")

"""Command line: ``svgeval run`` and ``score`` (from :mod:`svgeval.cli.run`), ``export``,
``list``, ``demo``, the report commands of :mod:`svgeval.cli.reports` (``report``,
``leaderboard``, ``compare``), and each suite's commands (``svgeval svgenius ...``), mounted
from the ``svgeval.commands`` entry points by :mod:`svgeval.cli.suites`.

Every error a user can cause (bad path, bad flag, unreachable endpoint, malformed data) ends with a
one-line message saying what happened and what to do, and exit code 1.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from svgeval import __version__
from svgeval.cli.errors import UserError, say, user_errors
from svgeval.cli.execute import execute, stdout_console
from svgeval.cli.reports import compare, leaderboard, report
from svgeval.cli.rewards import serve_rewards
from svgeval.cli.run import (
    HELP,
    DataPath,
    Limit,
    Seed,
    Sets,
    TaskName,
    Tier,
    add_run_commands,
    check_numbers,
    make_task,
    new_app,
)
from svgeval.cli.score import merge
from svgeval.cli.suites import SuiteCommands
from svgeval.cli.validation import audit, correlate, svgauge_app
from svgeval.metrics.presets import presets_using
from svgeval.metrics.registry import METRICS
from svgeval.models import MODELS, load_model
from svgeval.runner import RunDir, Runner, RunSettings, load_samples
from svgeval.runner.run_dir import folder_name
from svgeval.runner.units import select_samples
from svgeval.svg.demo_corpus import write_demo_corpus
from svgeval.tasks import get_task, tasks_by_suite
from svgeval.tasks.base import Task, TaskOptions
from svgeval.tasks.options import option_infos

app = new_app(SuiteCommands)
add_run_commands(app)
out = stdout_console()


@app.command()
def export(
    task: TaskName,
    out_file: Annotated[Path, typer.Option("--out", help="JSONL file to write.")],
    data: DataPath = None,
    tier: Tier = "all",
    seed: Seed = 0,
    limit: Limit = None,
    set_: Sets = None,
    images: Annotated[
        bool, typer.Option(help="Keep image parts of the messages (base64 data URLs).")
    ] = True,
) -> None:
    """Write each sample's id and chat messages, to answer them with any system and replay them.

    Each line is {"id", "group", "messages"}; answer with lines {"id", "response"} and run
    `svgeval run TASK --model replay:answers.jsonl`.
    """
    with user_errors():
        check_numbers(limit=(limit, 1, True))
        if out_file.is_dir():
            raise UserError(f"--out {out_file} is a directory; name a .jsonl file")
        samples = select_samples(load_samples(make_task(task, data, tier, seed, set_ or [])), limit)
        out_file.parent.mkdir(parents=True, exist_ok=True)
        with out_file.open("w", encoding="utf-8") as handle:
            for sample in samples:
                messages = sample.messages if images else _text_only(sample.messages)
                line = {"id": sample.id, "group": sample.group, "messages": messages}
                handle.write(json.dumps(line, ensure_ascii=False) + "\n")
        say(f"wrote {len(samples)} prompts to {out_file}")


def _text_only(messages: list[dict[str, object]]) -> list[dict[str, object]]:
    """Messages with their image parts removed."""
    stripped = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            content = [part for part in content if part.get("type") != "image_url"]
        stripped.append({**message, "content": content})
    return stripped


def _print_suite(suite: str, tasks: Sequence[type[Task]]) -> None:
    """One suite of ``svgeval list tasks``: a heading naming its source and preset, then each
    task with its ``--set`` options."""
    about = [f"{label}: {value}" for label, value in
             (("source", tasks[0].suite_source), ("preset", tasks[0].preset)) if value]
    detail = f"  ({'; '.join(about)})" if about else ""
    out.print(f"[bold underline]{escape(suite)}[/bold underline]{escape(detail)}", highlight=False)
    for cls in tasks:
        tiers = f" (tiers: {', '.join(cls.tiers)})" if cls.tiers else ""
        out.print(f"  [bold]{escape(cls.name)}[/bold]  {escape(cls.description + tiers)}")
        for option in option_infos(cls.Options):
            out.print(f"      --set {escape(option.describe())}", highlight=False)


@app.command("list")
def list_(
    what: Annotated[str, typer.Argument(help="tasks, models or metrics")],
) -> None:
    """List tasks, model backends or metrics."""
    with user_errors():
        if what == "tasks":
            for suite, tasks in tasks_by_suite().items():
                _print_suite(suite, tasks)
        elif what == "models":
            for kind in MODELS.all().values():
                out.print(f"[bold]{escape(kind.form)}[/bold]  {escape(kind.summary)}")
                for option in option_infos(kind.options) if kind.options else []:
                    out.print(f"      --model-arg {escape(option.describe())}", highlight=False)
        elif what == "metrics":
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


@app.command()
def demo(
    out_dir: Annotated[Path, typer.Option("--out", help="Run directory.")] = Path("runs/demo"),
    model: Annotated[str, typer.Option(help="identity (No Edit) or oracle.")] = "identity",
    seed: Annotated[int, typer.Option(help="Seed for the SVGEditBench colour draws.")] = 0,
) -> None:
    """SVGEditBench on the built-in icons: no server, no download."""
    # imported here, not at the top: the builder pulls in the SVGenius generators, which every
    # other command (``svgeval run`` among them) would load for nothing
    from svgeval.builders.svgeditbench.builder import build_cases, write_release

    with user_errors():
        data = out_dir / "data"
        names = write_demo_corpus(out_dir / "icons")
        cases = build_cases(sorted((out_dir / "icons").glob("*.svg")), seed=seed, names=names)
        write_release(cases, data)
        say(f"built {len(cases)} SVGEditBench cases from {len(names)} icons in {data}")
        task = get_task("svgeditbench")(TaskOptions(data=data, seed=seed))
        runner = Runner(task, load_model(model), RunDir(out_dir / f"run-{folder_name(model)}"),
                        RunSettings(seed=seed))
        execute(runner, runner.prepare(resume=True), runner.run)


app.add_typer(svgauge_app, name="svgauge", context_settings=HELP)
for report_command in (report, leaderboard, compare, correlate, audit, merge):
    app.command()(report_command)
app.command("serve-rewards")(serve_rewards)


@app.callback(invoke_without_command=True)
def main(
    version: Annotated[bool, typer.Option("--version", help="Print the version.")] = False,
) -> None:
    """svgeval: benchmarks and metrics for models that read, edit and write SVG."""
    if version:
        say(__version__, out)
        raise typer.Exit(0)


if __name__ == "__main__":
    sys.exit(app())

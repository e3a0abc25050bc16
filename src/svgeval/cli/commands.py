"""``svgeval export`` and ``svgeval demo``: a task's prompts written out, and SVGEditBench on
the built-in icons. Like every command, imported only when run (:mod:`svgeval.cli.root`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from svgeval.audit import OracleComparison, compare_with_oracle
from svgeval.cli.errors import UserError, say, user_errors
from svgeval.cli.execute import execute
from svgeval.cli.run import (
    DataPath,
    Limit,
    Seed,
    Sets,
    TaskName,
    Tier,
    parse_sets,
)
from svgeval.run_request import DEFAULTS, RunRequest, checked
from svgeval.runner import load_samples
from svgeval.runner.build import build_runner, task_of
from svgeval.runner.run_dir import folder_name
from svgeval.runner.units import select_samples
from svgeval.svg.demo_corpus import write_demo_corpus
from svgeval.tasks import get_task
from svgeval.tasks.base import Task
from svgeval.tasks.builtin import BUILTIN


def export(
    task: TaskName,
    out_file: Annotated[Path, typer.Option("--out", help="JSONL file to write.")],
    data: DataPath = None,
    tier: Tier = DEFAULTS.tier,
    seed: Seed = DEFAULTS.seed,
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
        request = checked(RunRequest, task=task, data=data, tier=tier, seed=seed, limit=limit,
                          options=parse_sets(set_ or []))
        if out_file.is_dir():
            raise UserError(f"--out {out_file} is a directory; name a .jsonl file")
        samples = select_samples(load_samples(task_of(request)), limit)
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


def demo(
    task: Annotated[str | None, typer.Argument(
        help="A task to run on its built-in sample with the oracle and its degenerate baseline "
             "(default: SVGEditBench on the built-in icons with --model).")] = None,
    out_dir: Annotated[Path | None, typer.Option(
        "--out", help="Run directory (default runs/demo, or runs/demo-TASK).")] = None,
    model: Annotated[str, typer.Option(help="identity (No Edit) or oracle.")] = DEFAULTS.model,
    seed: Annotated[int, typer.Option(
        help="Seed for the SVGEditBench colour draws.")] = DEFAULTS.seed,
) -> None:
    """SVGEditBench on the built-in icons, or TASK on its built-in sample; no server.

    With TASK, the oracle and the task's degenerate baseline (identity where the samples have
    an input SVG, else empty) answer its built-in sample into --out/oracle and --out/BASELINE;
    both tables are printed, then how the oracle compares on each metric. It exits with 1 when
    the baseline beats the oracle anywhere (a scorer that cannot tell them apart).
    """
    if task is not None:
        _demo_task(task, out_dir or Path(f"runs/demo-{task}"), seed)
        return
    # imported here, not at the top: the builder pulls in the SVGenius generators, which every
    # other command (``svgeval run`` among them) would load for nothing
    from svgeval.builders.svgeditbench.builder import build_cases, write_release

    out_dir = out_dir or Path("runs/demo")
    with user_errors():
        data = out_dir / "data"
        names = write_demo_corpus(out_dir / "icons")
        cases = build_cases(sorted((out_dir / "icons").glob("*.svg")), seed=seed, names=names)
        write_release(cases, data)
        say(f"built {len(cases)} SVGEditBench cases from {len(names)} icons in {data}")
        run_dir = out_dir / f"run-{folder_name(model)}"
        runner = build_runner(RunRequest(task="svgeditbench", model=model, data=data, seed=seed,
                                         out_dir=run_dir))
        execute(runner, runner.prepare(resume=True), runner.run)
    say(next_steps(run_dir, data))


def next_steps(run_dir: Path, data: Path) -> str:
    """What to try after the demo: its report, the oracle on the same cases, and a model of
    one's own; written with the command as it was called (``.venv/bin/svgeval`` from make)."""
    program = sys.argv[0] if Path(sys.argv[0]).name == "svgeval" else "svgeval"
    return "\n".join([
        "next: the report (pictures and tables as HTML), the oracle, a model of your own:",
        f"  {program} report {run_dir}",
        f"  {program} run svgeditbench --data {data} --model oracle --out {run_dir.parent}/run-oracle",
        (f"  {program} run svgeditbench --data {data} --model openai-compatible:NAME "
         "--base-url http://localhost:8000/v1 --out runs/mine"),
    ])


def _demo_task(name: str, out_dir: Path, seed: int) -> None:
    """``svgeval demo TASK``: the oracle against the degenerate baseline on the built-in sample."""
    with user_errors():
        task_cls = get_task(name)
        baseline = "identity" if task_cls.takes_input_svg else "empty"
        results = {}
        for model in ("oracle", baseline):
            runner = build_runner(RunRequest(task=name, model=model, data=Path(BUILTIN),
                                             seed=seed, out_dir=out_dir / model))
            results[model] = execute(runner, runner.prepare(resume=True), runner.run)
        found = compare_with_oracle(task_cls, results["oracle"], results[baseline])
        better = sum(1 for row in found if row.sign > 0)
        say(f"{name}: the oracle is better than {baseline} on {better} of {len(found)} metrics"
            + "".join(f"; {_verdict(task_cls, baseline, row)} on {row.key} "
                      f"({row.oracle:.4g} against {row.baseline:.4g})"
                      for row in found if row.sign <= 0))
        if any(row.sign < 0 and not task_cls.declared_degenerate(baseline, row.key)
               for row in found):
            raise UserError(f"{baseline} beats the oracle on {name}'s built-in sample: please "
                            "report it (a scorer that cannot tell a right answer from a wrong one)")


def _verdict(task: type[Task], baseline: str, row: OracleComparison) -> str:
    """How the demo names a metric the oracle does not win."""
    if task.declared_degenerate(baseline, row.key):
        return f"{'equal' if row.sign == 0 else 'better for the baseline'} (declared degenerate)"
    return "WORSE" if row.sign < 0 else "EQUAL"

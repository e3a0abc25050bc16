"""``svgeval export`` and ``svgeval demo``: a task's prompts written out, and SVGEditBench on
the built-in icons. Like every command, imported only when run (:mod:`svgeval.cli.root`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from svgeval.cli.errors import UserError, say, user_errors
from svgeval.cli.execute import execute
from svgeval.cli.request import check_numbers
from svgeval.cli.run import (
    DataPath,
    Limit,
    Seed,
    Sets,
    TaskName,
    Tier,
    make_task,
)
from svgeval.models import load_model
from svgeval.runner import RunDir, Runner, RunSettings, load_samples
from svgeval.runner.run_dir import folder_name
from svgeval.runner.units import select_samples
from svgeval.svg.demo_corpus import write_demo_corpus
from svgeval.tasks import get_task
from svgeval.tasks.base import CommonOptions


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
        task = get_task("svgeditbench")(CommonOptions(data=data, seed=seed))
        runner = Runner(task, load_model(model), RunDir(out_dir / f"run-{folder_name(model)}"),
                        RunSettings(seed=seed))
        execute(runner, runner.prepare(resume=True), runner.run)

"""``svgeval merge``: shards of one run combined into one run directory (see
:mod:`svgeval.runner.merge`), and the runner that finishes a run from its records alone."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Annotated

import typer

from svgeval.cli.errors import UserError, say, user_errors
from svgeval.cli.execute import execute
from svgeval.models import load_model
from svgeval.runner import RunConfig, RunDir, Runner
from svgeval.runner.identity import task_from_config
from svgeval.runner.judging import Judge
from svgeval.runner.merge import (
    merge_run_dirs,
    merged_work,
    put_in_place,
    recover,
    scratch_dir,
)


def cached_runner(
    config: RunConfig, run_dir: RunDir, data: Path | None, judge: Judge | None = None
) -> Runner:
    """A runner of the run ``config`` that asks no model: its answers come from the run's cache
    and its judged metrics from the cached verdicts (unless ``judge`` can be asked). It scores
    with the local executor, whatever executor the run used."""
    if judge is None and config.judge is not None:
        judge = Judge(config.judge)
    local = config.settings.model_copy(update={"executor": "local", "ray_address": None})
    runner = Runner(task_from_config(config, data), load_model("identity"), run_dir, local,
                    judge=judge)
    runner.model.spec = config.model
    return runner


def merge(
    run_dirs: Annotated[list[Path], typer.Argument(help="Run directories of one run (shards).")],
    out_dir: Annotated[Path, typer.Option("--out", help="New run directory to write.")],
    force: Annotated[
        bool, typer.Option(help="Replace the run files of a non-empty --out, once the merge "
                           "has succeeded.")
    ] = False,
    data: Annotated[
        Path | None, typer.Option(help="Where the data is now, if it moved since the runs.")
    ] = None,
) -> None:
    """Merge the run directories of the shards (--shard) of one run into --out, without calling
    any model; refused for runs of different configurations or shards that disagree. The merge
    is written beside --out and renamed to it at the end: a killed merge changes nothing."""
    with user_errors():
        inputs = {path.resolve() for path in run_dirs}
        if out_dir.resolve() in inputs:
            raise UserError(f"--out {out_dir} is one of the directories to merge; name a new one")
        if out_dir.exists() and not out_dir.is_dir():
            raise UserError(f"--out {out_dir} is a file, not a directory; choose a folder")
        note = recover(out_dir)
        if note:
            say(f"note: {note}")
        if out_dir.exists() and any(out_dir.iterdir()) and not force:
            raise UserError(
                f"--out {out_dir} is not empty; choose a new folder or pass --force "
                "to replace the run files in it"
            )
        scratch = scratch_dir(out_dir)
        scratch.mkdir(parents=True)
        try:
            out = RunDir(scratch)
            config = merge_run_dirs(run_dirs, out)
            runner = cached_runner(config, out, data)
            execute(runner, merged_work(runner, config), runner.finish, mode="merge",
                    shown_root=out_dir)
            put_in_place(scratch, out_dir)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)  # a merge that failed leaves nothing

"""``svgeval merge``: shards of one run combined into one run directory (see
:mod:`svgeval.runner.merge`), finished from their records alone (:meth:`Runner.finish`)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Annotated

import typer

from svgeval.cli.errors import UserError, say, user_errors
from svgeval.cli.execute import execute
from svgeval.runner import RunDir, Runner
from svgeval.runner.identity import task_from_config
from svgeval.runner.merge import (
    merge_run_dirs,
    merged_work,
    put_in_place,
    recover,
    scratch_dir,
)


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
            runner = Runner.cached(config, task_from_config(config, data), out)
            execute(runner, merged_work(runner, config), runner.finish, mode="merge",
                    shown_root=out_dir)
            put_in_place(scratch, out_dir)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)  # a merge that failed leaves nothing

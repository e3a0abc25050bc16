"""``svgeval toy build``: a task file of circle counts for ``svgeval run toy-circles``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from svgeval.errors import UserError

app = typer.Typer(no_args_is_help=True, help="Toy suite tools.")


@app.command("build")
def build(
    out: Annotated[Path, typer.Option("--out", help="Task file to write (JSON).")],
    up_to: Annotated[int, typer.Option(help="Ask for 1 to UP_TO circles.")] = 3,
) -> None:
    """Write the counts 1..UP_TO; evaluate them with svgeval run toy-circles --data OUT."""
    if up_to < 1:
        raise UserError(f"--up-to must be at least 1, got {up_to}")
    out.write_text(json.dumps(list(range(1, up_to + 1))), encoding="utf-8")
    typer.echo(f"wrote {up_to} counts to {out}")

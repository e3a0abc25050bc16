"""The ``--executor`` and ``--ray-address`` flags of ``svgeval run`` (see README.md, Ray)."""

from __future__ import annotations

from typing import Annotated

import typer

from svgeval.cli.errors import UserError

ExecutorFlag = Annotated[
    str, typer.Option(help="Where scoring and model metrics run: local or ray (README: Ray).")
]
RayAddressFlag = Annotated[
    str | None, typer.Option(help="Ray cluster to join (default: a local Ray instance).")
]


def check_executor(executor: str, ray_address: str | None) -> None:
    """``--executor`` and ``--ray-address`` make sense together, and with Ray chosen, join its
    cluster or start a local instance (one line naming the extra when Ray is missing); Ray is
    imported only when chosen."""
    from svgeval.runner.executors import EXECUTORS

    if executor not in EXECUTORS:
        raise UserError(f"--executor must be one of {', '.join(EXECUTORS)}, got {executor!r}")
    if ray_address is not None and executor != "ray":
        raise UserError("--ray-address needs --executor ray")
    if executor == "ray":  # before the run directory is touched
        from svgeval.runner.ray_executor import connect

        connect(ray_address)

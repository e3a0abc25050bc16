"""The ``--executor`` and ``--ray-address`` flags of ``svgeval run`` (see docs/ray.md)."""

from __future__ import annotations

from typing import Annotated

import typer

ExecutorFlag = Annotated[
    str, typer.Option(help="Where scoring and model metrics run: local or ray (docs/ray.md).")
]
RayAddressFlag = Annotated[
    str | None, typer.Option(help="Ray cluster to join (default: a local Ray instance).")
]


def connect_executor(executor: str, ray_address: str | None) -> None:
    """With Ray chosen, join its cluster or start a local instance (one line naming the extra
    when Ray is missing); Ray is imported only when chosen. The flags' values are checked with
    the run's others (:meth:`svgeval.cli.request.RunRequest.check`)."""
    if executor == "ray":  # before the run directory is touched
        from svgeval.runner.ray_executor import connect

        connect(ray_address)

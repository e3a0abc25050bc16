"""The ``--executor`` and ``--ray-address`` flags of ``svgeval run`` (see docs/ray.md): checked
with the run's other flags (:class:`svgeval.run_request.RunRequest`), Ray joined when the runner
is built (:func:`svgeval.runner.build.build_runner`)."""

from __future__ import annotations

from typing import Annotated

import typer

ExecutorFlag = Annotated[
    str, typer.Option(help="Where scoring and model metrics run: local or ray (docs/ray.md).")
]
RayAddressFlag = Annotated[
    str | None, typer.Option(help="Ray cluster to join (default: a local Ray instance).")
]


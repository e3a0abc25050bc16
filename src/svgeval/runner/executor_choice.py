"""The executor a run uses: :class:`~svgeval.runner.executors.LocalExecutor` or Ray's.

Its own module, apart from :mod:`svgeval.runner.executors` (which the Ray executor builds on),
so that choosing one imports Ray only when ``--executor ray`` is asked for and neither executor
module imports the other.
"""

from __future__ import annotations

from typing import Any

from svgeval.runner.executors import EXECUTORS, Executor, ExecutorError, LocalExecutor
from svgeval.runner.run_config import RunSettings
from svgeval.tasks.base import Task


def make_executor(task: Task[Any], settings: RunSettings) -> Executor:
    """The executor ``settings.executor`` names; Ray is imported only when it is chosen."""
    if settings.executor == "local":
        return LocalExecutor(task, settings)
    if settings.executor == "ray":
        from svgeval.runner.ray_executor import RayExecutor

        return RayExecutor(task, settings)
    raise ExecutorError(
        f"--executor must be one of {', '.join(EXECUTORS)}, got {settings.executor!r}")

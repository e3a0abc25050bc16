"""Benchmark tasks, looked up by name in :data:`TASKS`.

Each task module registers its :class:`~svgeval.tasks.base.Task` subclass with
``@register_task``. A suite is found through the ``svgeval.tasks`` entry-point group, whose
names are the suites' task-name prefixes (``svgenius`` for ``svgenius-bugfix``); the suites
that ship with svgeval are declared in its ``pyproject.toml`` like any other package's (see
:mod:`svgeval.registry`), and asking for one task imports its suite alone.
"""

from __future__ import annotations

from svgeval.registry import Registry
from svgeval.tasks.aggregate import Aggregate
from svgeval.tasks.base import CommonOptions, Sample, Task
from svgeval.tasks.outcome import Failure, FailureKind, MetricValues, Outcome

TASKS: Registry[type[Task]] = Registry("task", "svgeval.tasks")
"""Every task by name."""

register_task = TASKS.register
"""Class decorator that makes a task available under ``cls.name``."""


def all_tasks() -> dict[str, type[Task]]:
    """Every registered task by name."""
    return TASKS.all()


OTHER_SUITE = "other"
"""The heading of tasks that name no suite (e.g. a plugin's)."""


def tasks_by_suite() -> dict[str, list[type[Task]]]:
    """Every registered task grouped under its :attr:`Task.suite`, suites sorted by name and the
    tasks without one last, under :data:`OTHER_SUITE`."""
    groups: dict[str, list[type[Task]]] = {}
    for task in all_tasks().values():
        groups.setdefault(task.suite or OTHER_SUITE, []).append(task)
    named = sorted((suite for suite in groups if suite != OTHER_SUITE), key=str.casefold)
    return {suite: groups[suite] for suite in [*named, OTHER_SUITE] if suite in groups}


def get_task(name: str) -> type[Task]:
    """The task class called ``name``; KeyError with the known names otherwise."""
    return TASKS.get(name)


__all__ = [
    "OTHER_SUITE",
    "TASKS",
    "Aggregate",
    "CommonOptions",
    "Failure",
    "FailureKind",
    "MetricValues",
    "Outcome",
    "Sample",
    "Task",
    "all_tasks",
    "get_task",
    "register_task",
    "tasks_by_suite",
]

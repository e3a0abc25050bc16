"""Benchmark tasks, looked up by name in :data:`TASKS`.

Each task module registers its :class:`~svgeval.tasks.base.Task` subclass with
``@register_task``; the modules that ship with svgeval are imported the first time the registry
is used, and other packages add tasks through the ``svgeval.tasks`` entry-point group (see
:mod:`svgeval.registry`).
"""

from __future__ import annotations

from svgeval.registry import Registry
from svgeval.tasks.aggregate import Aggregate
from svgeval.tasks.base import (
    Failure,
    FailureKind,
    Sample,
    Score,
    Task,
    TaskOptions,
)

SUITE_MODULES = {
    "svgeditbench": "svgeval.tasks.svgeditbench",
    "svgenius": "svgeval.tasks.svgenius",
    "vectorgym": "svgeval.tasks.vectorgym",
    "svgeditbench-v2": "svgeval.tasks.svgeditbench_v2",
    "starvector": "svgeval.tasks.starvector",
    "unisvg": "svgeval.tasks.unisvg",
    "sarena": "svgeval.tasks.sarena",
}
"""The module of each suite that ships with svgeval, by the prefix of its task names."""


def suite_module(task_name: str) -> str | None:
    """The module registering ``task_name``: that of the longest suite prefix it starts with
    (``svgeditbench-v2`` before ``svgeditbench``), None if it names no shipped suite."""
    prefixes = [p for p in SUITE_MODULES if task_name == p or task_name.startswith(p + "-")]
    return SUITE_MODULES[max(prefixes, key=len)] if prefixes else None


TASKS: Registry[type[Task]] = Registry(
    "task", "svgeval.tasks", builtin_modules=tuple(SUITE_MODULES.values()),
    module_for=suite_module,
)
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
    "Failure",
    "FailureKind",
    "Sample",
    "Score",
    "Task",
    "TaskOptions",
    "all_tasks",
    "get_task",
    "register_task",
    "tasks_by_suite",
]

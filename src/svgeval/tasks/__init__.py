"""Benchmark tasks, looked up by name.

Each task module registers its :class:`~svgeval.tasks.base.Task` subclass with
:func:`register_task`; importing the module is enough, and :data:`TASK_MODULES` lists the modules
that ship with svgeval.
"""

from __future__ import annotations

import importlib

from svgeval.tasks.base import Aggregate, Sample, Score, Task, TaskOptions

TASK_MODULES = ("svgeval.tasks.svgeditbench", "svgeval.tasks.svgenius")

_REGISTRY: dict[str, type[Task]] = {}


def register_task(cls: type[Task]) -> type[Task]:
    """Class decorator that makes a task available under ``cls.name``."""
    _REGISTRY[cls.name] = cls
    return cls


def all_tasks() -> dict[str, type[Task]]:
    """Every registered task by name (imports the built-in task modules first)."""
    for module in TASK_MODULES:
        importlib.import_module(module)
    return dict(sorted(_REGISTRY.items()))


def get_task(name: str) -> type[Task]:
    """The task class called ``name``; raises KeyError with the known names otherwise."""
    tasks = all_tasks()
    if name not in tasks:
        raise KeyError(f"unknown task {name!r}; known tasks: {', '.join(tasks)}")
    return tasks[name]


__all__ = [
    "Aggregate",
    "Sample",
    "Score",
    "Task",
    "TaskOptions",
    "all_tasks",
    "get_task",
    "register_task",
]

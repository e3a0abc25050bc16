"""The benchmark cases: one module each, named as ``python -m bench`` names the case
(``reward_costs`` is ``reward-costs``), with one entry point, ``run(scale: Scale) ->
Figures``. A module imports what needs an optional extra inside ``run``, after
:func:`~bench.measure.needs`, so that listing the cases imports none of it."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from types import ModuleType

from bench.measure import Figures, Scale

Case = Callable[[Scale], Figures]


def names() -> list[str]:
    """Every case's name, sorted."""
    return sorted(info.name.replace("_", "-") for info in pkgutil.iter_modules(__path__))


def module(name: str) -> ModuleType:
    """The module of case ``name``."""
    return importlib.import_module(f"{__name__}.{name.replace('-', '_')}")


def summary(name: str) -> str:
    """The first paragraph of case ``name``'s docstring, on one line."""
    return " ".join((module(name).__doc__ or "").strip().split("\n\n")[0].split())


def entry_point(name: str) -> Case:
    """Case ``name``'s ``run``."""
    run: Case = module(name).run
    return run

"""One way to register tasks, metrics, presets, rules, commands and model backends, and to find
those of other packages.

A :class:`Registry` maps names to entries. An entry is added with the registry's decorator
(``@TASKS.register`` on a task class, ``@MODELS.register`` on a backend kind) or by calling it
on an object. Entries are found through entry points declared in a package's
``pyproject.toml``, in the registry's group::

    [project.entry-points."svgeval.tasks"]
    my-suite = "my_package.my_suite"

An entry point that names a module (``my_package.my_suite``) is loaded by importing it, and the
module's decorators register its entries; one that names an object (``my_package.cli:app``) is
registered itself, under the entry point's name. The suites that ship with svgeval are found
the same way, from svgeval's own ``pyproject.toml``; a few registries of the lower layers also
import fixed ``builtin_modules`` (the metric families, the model kinds).

An entry point's name is the name of its entry or a prefix of several: ``svgenius`` leads to
the module that registers ``svgenius-bugfix``, ``svgenius-optimize``, ... So asking for one
entry reads svgeval's own entry points (one package's metadata), imports the module of the
longest name that fits, and nothing else: ``svgeval run svgeditbench`` imports the SVGEditBench
suite alone. Only listing every entry, or asking for a name no module of svgeval's declares,
reads every installed package's entry points and imports all of them. :meth:`Registry.names`
lists the names without importing anything (``svgeval --help`` names the suites' commands).

After changing entry points, install the package again (``pip install -e .``): they are read
from the installed metadata.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Generic, TypeVar

from svgeval.errors import UserError

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

T = TypeVar("T")
DISTRIBUTION = "svgeval"
"""The installed package whose entry points are read first."""


def own_entry_points(group: str) -> list[EntryPoint]:
    """svgeval's own entry points in ``group`` (none when svgeval is not installed)."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        return list(distribution(DISTRIBUTION).entry_points.select(group=group))
    except PackageNotFoundError:
        return []


def every_entry_point(group: str) -> list[EntryPoint]:
    """The entry points in ``group`` of every installed package."""
    from importlib.metadata import entry_points

    return list(entry_points(group=group))


def names_fit(point: str, name: str) -> bool:
    """True when the entry point ``point`` leads to ``name``: equal, or its prefix before a
    ``-`` (``svgeditbench`` fits ``svgeditbench-v2`` and ``svgeditbench``)."""
    return name == point or name.startswith(point + "-")


class UnknownName(UserError, KeyError):
    """A name no entry of a registry has (a task, a metric, a model kind...): the user's to
    correct. A KeyError as well, the error a look-up by name raises, which callers catch
    (``except KeyError``: a report leaves out a task that is not installed)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""  # KeyError's own quotes its message


class Registry(Generic[T]):
    """Named entries of one kind (``what``), e.g. tasks, found through ``entry_point_group``.

    ``name_of`` reads an entry's name (its ``name`` attribute by default); ``builtin_modules``
    are imported with the entry points when the registry is listed.
    """

    def __init__(
        self,
        what: str,
        entry_point_group: str,
        builtin_modules: Sequence[str] = (),
        name_of: Callable[[T], str] | None = None,
    ) -> None:
        self.what = what
        self.entry_point_group = entry_point_group
        self.builtin_modules = tuple(builtin_modules)
        self._name_of = name_of or (lambda entry: str(getattr(entry, "name")))  # noqa: B009
        self._entries: dict[str, T] = {}
        self._loaded = False
        self._own: list[EntryPoint] | None = None

    def register(self, entry: T, name: str | None = None) -> T:
        """Add ``entry`` under ``name`` (default: its own name) and return it (usable as a
        decorator). Registering a second, different entry under a taken name raises
        ValueError."""
        name = name if name is not None else self._name_of(entry)
        known = self._entries.get(name)
        if known is not None and known is not entry:
            raise ValueError(f"{self.what} {name!r} is registered twice")
        self._entries[name] = entry
        return entry

    def _load_point(self, point: EntryPoint) -> None:
        loaded = point.load()
        if not isinstance(loaded, ModuleType):
            self.register(loaded, name=point.name)

    def _own_points(self) -> list[EntryPoint]:
        if self._own is None:
            self._own = own_entry_points(self.entry_point_group)
        return self._own

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        for module in self.builtin_modules:
            importlib.import_module(module)
        for point in every_entry_point(self.entry_point_group):
            self._load_point(point)

    def all(self) -> dict[str, T]:
        """Every entry by name, sorted by name."""
        self._load()
        return dict(sorted(self._entries.items()))

    def names(self) -> list[str]:
        """The names of the registered entries and of every entry point in the group, sorted,
        read from the packages' metadata without importing them."""
        points = {point.name for point in every_entry_point(self.entry_point_group)}
        return sorted(points | set(self._entries))

    def point_for(self, name: str) -> EntryPoint | None:
        """svgeval's own entry point that leads to ``name``: the longest that fits."""
        fitting = [point for point in self._own_points() if names_fit(point.name, name)]
        return max(fitting, key=lambda point: len(point.name)) if fitting else None

    def _find(self, name: str) -> T | None:
        """The entry called ``name``, importing as little as it takes to find it."""
        if name not in self._entries and not self._loaded:
            point = self.point_for(name)
            if point is not None:
                self._load_point(point)
        if name not in self._entries:
            self._load()
        return self._entries.get(name)

    def get(self, name: str) -> T:
        """The entry called ``name``; :class:`UnknownName` (a KeyError) otherwise, naming the
        closest known names (``did you mean 'svgeditbench'?``), or every known name when none is
        close."""
        entry = self._find(name)
        if entry is None:
            known = list(self.all())
            close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
            if close:
                guesses = " or ".join(repr(match) for match in close)
                raise UnknownName(f"unknown {self.what} {name!r}; did you mean {guesses}? "
                                  f"(`svgeval list {self.what}s` shows all {len(known)})")
            raise UnknownName(f"unknown {self.what} {name!r}; known: {', '.join(known)}")
        return entry

    def __contains__(self, name: str) -> bool:
        return self._find(name) is not None

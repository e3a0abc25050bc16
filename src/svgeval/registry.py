"""One way to register tasks, metrics and model backends, and to find those of other packages.

A :class:`Registry` maps names to entries. An entry is added with the registry's decorator
(``@TASKS.register`` on a task class, ``@MODELS.register`` on a backend kind) or by calling it
on an object. Entries that ship with svgeval live in the modules named by ``builtin_modules``;
another package adds its own without editing svgeval by declaring an entry point in the
registry's group, e.g. in its ``pyproject.toml``::

    [project.entry-points."svgeval.tasks"]
    my-task = "my_package.my_task"

Loading such an entry point imports the module, whose decorators register its entries.
Modules are imported the first time the registry is listed, or an entry is asked for that is
not registered yet, not before, so importing svgeval stays cheap. With ``module_for`` (which
builtin module defines a name), asking for one entry imports that module alone: ``svgeval run
svgeditbench`` imports the SVGEditBench task, not every suite.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

T = TypeVar("T")


class Registry(Generic[T]):
    """Named entries of one kind (``what``), e.g. tasks.

    ``name_of`` reads an entry's name (its ``name`` attribute by default); ``module_for`` names
    the builtin module that registers an entry (None: unknown, load them all).
    """

    def __init__(
        self,
        what: str,
        entry_point_group: str,
        builtin_modules: Sequence[str] = (),
        name_of: Callable[[T], str] | None = None,
        module_for: Callable[[str], str | None] | None = None,
    ) -> None:
        self.what = what
        self.entry_point_group = entry_point_group
        self.builtin_modules = tuple(builtin_modules)
        self._name_of = name_of or (lambda entry: str(getattr(entry, "name")))  # noqa: B009
        self._module_for = module_for
        self._entries: dict[str, T] = {}
        self._loaded = False

    def register(self, entry: T) -> T:
        """Add ``entry`` under its name and return it (usable as a decorator).

        Registering a second, different entry under a taken name raises ValueError.
        """
        name = self._name_of(entry)
        known = self._entries.get(name)
        if known is not None and known is not entry:
            raise ValueError(f"{self.what} {name!r} is registered twice")
        self._entries[name] = entry
        return entry

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        for module in self.builtin_modules:
            importlib.import_module(module)
        from importlib.metadata import entry_points  # here: only a full listing needs it

        for point in entry_points(group=self.entry_point_group):
            point.load()

    def all(self) -> dict[str, T]:
        """Every entry by name, sorted by name."""
        self._load()
        return dict(sorted(self._entries.items()))

    def _find(self, name: str) -> T | None:
        """The entry called ``name``, importing as little as it takes to find it."""
        if name not in self._entries and not self._loaded and self._module_for is not None:
            module = self._module_for(name)
            if module is not None:
                importlib.import_module(module)
        if name not in self._entries:
            self._load()
        return self._entries.get(name)

    def get(self, name: str) -> T:
        """The entry called ``name``; KeyError otherwise, naming the closest known names
        (``did you mean 'svgeditbench'?``), or every known name when none is close."""
        entry = self._find(name)
        if entry is None:
            known = list(self.all())
            close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
            if close:
                guesses = " or ".join(repr(match) for match in close)
                raise KeyError(f"unknown {self.what} {name!r}; did you mean {guesses}? "
                               f"(`svgeval list {self.what}s` shows all {len(known)})")
            raise KeyError(f"unknown {self.what} {name!r}; known: {', '.join(known)}")
        return entry

    def __contains__(self, name: str) -> bool:
        return self._find(name) is not None

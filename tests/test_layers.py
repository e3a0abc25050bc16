"""The layers of src/svgeval, read from every import statement (module level or not).

``svg`` -> ``render`` -> ``metrics`` -> ``tasks`` -> ``models`` -> ``runner`` -> ``builders`` -> the rest (the
command line, reports, rewards): a module imports only its own layer and those before it. A
suite's package (``tasks/<suite>``, ``builders/<suite>``) imports no other suite; what suites
share lives in ``tasks/common`` and the ``builders`` modules beside the suite packages.
"""

from __future__ import annotations

import ast
from pathlib import Path

import svgeval

PACKAGE = Path(svgeval.__file__).parent
BASE = ("registry", "messages", "errors", "run_request")
"""Modules every layer may use: the registration mechanism, the chat message format, the root
of the exceptions and the run request (every run setting and its default)."""
ORDER = ("svg", "render", "metrics", "tasks", "models", "runner", "builders")
"""The layers in order; :data:`BASE` comes before them all and everything else after."""
SHARED = {"common"}
"""Packages under tasks/ (and builders/) that are not suites."""


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """Every ``svgeval`` module ``path`` names in an import (``from a import b`` gives
    ``a.b`` when ``a/b`` is a module or package, else ``a``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                sub = PACKAGE.parent.joinpath(*f"{node.module}.{alias.name}".split("."))
                is_module = sub.with_suffix(".py").is_file() or sub.is_dir()
                found.add(f"{node.module}.{alias.name}" if is_module else node.module)
    return {name for name in found if name == "svgeval" or name.startswith("svgeval.")}


def layer(module: str) -> int:
    """0 for :data:`BASE` and the package itself, the layers of :data:`ORDER` from 1, the
    command line and everything else last."""
    parts = module.split(".")
    if len(parts) == 1 or parts[1] in BASE:
        return 0
    return ORDER.index(parts[1]) + 1 if parts[1] in ORDER else len(ORDER) + 1


def suite(module: str) -> str | None:
    """The suite a ``tasks`` or ``builders`` module belongs to (None: a shared module)."""
    parts = module.split(".")
    if len(parts) < 3 or parts[1] not in ("tasks", "builders"):
        return None
    package = PACKAGE / parts[1] / parts[2]
    return parts[2] if package.is_dir() and parts[2] not in SHARED else None


def arrows() -> list[tuple[str, str]]:
    """(importer, imported) of every import inside svgeval, but the package root's: its
    ``__getattr__`` hands out the public API (``svgeval.evaluate``) when asked for, and
    :func:`test_the_package_root_imports_nothing_on_import` checks it imports nothing itself."""
    return [(module_name(path), imported) for path in sorted(PACKAGE.rglob("*.py"))
            if path != PACKAGE / "__init__.py" for imported in sorted(imports(path))]


def test_the_package_root_imports_nothing_on_import() -> None:
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    top = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert all(isinstance(node, ast.ImportFrom) and node.module in ("__future__", "typing")
               for node in top)


def test_the_scan_sees_the_arrows_it_judges() -> None:
    found = set(arrows())
    assert ("svgeval.tasks.svgeditbench.task", "svgeval.tasks.svgeditbench.data") in found
    assert ("svgeval.builders.svgenius.qa_generation", "svgeval.models.base") in found
    assert suite("svgeval.tasks.svgenius.bugfix") == "svgenius"
    assert suite("svgeval.tasks.common.drawing") is None and suite("svgeval.tasks.base") is None
    assert layer("svgeval.builders.svgenius.cli") == 7 and layer("svgeval.cli") == 8


def import_cycle() -> list[str]:
    """A cycle of imports (``[a, b, ..., a]``), counting those inside functions, or [] when
    there is none: a depth-first walk that meets a module still on its path."""
    graph: dict[str, set[str]] = {}
    for importer, imported in arrows():
        if importer != imported:
            graph.setdefault(importer, set()).add(imported)
    done: set[str] = set()
    for start in sorted(graph):
        path = [start]
        pending = [iter(sorted(graph.get(start, ())))]
        while pending:
            following = next(pending[-1], None)
            if following is None:
                done.add(path.pop())
                pending.pop()
            elif following in path:
                return path[path.index(following):] + [following]
            elif following not in done:
                path.append(following)
                pending.append(iter(sorted(graph.get(following, ()))))
    return []


def test_no_import_cycle() -> None:
    """No module imports, at module level or inside a function, one that imports it back: a
    piece two modules share lives in a module of its own."""
    cycle = import_cycle()
    assert cycle == [], " -> ".join(cycle)


def test_no_module_imports_a_later_layer() -> None:
    against = [f"{a} imports {b}" for a, b in arrows() if layer(b) > layer(a)]
    assert against == []


def test_no_suite_imports_another_suite() -> None:
    crossing = [f"{a} imports {b}" for a, b in arrows()
                if suite(a) is not None and suite(b) is not None and suite(a) != suite(b)]
    assert crossing == []


def test_no_lower_layer_imports_a_suite_or_a_builder() -> None:
    lower = {"svg", "metrics", "models", "runner"}
    wrong = [f"{a} imports {b}" for a, b in arrows()
             if a.split(".")[1] in lower
             and (suite(b) is not None or b.startswith("svgeval.builders"))]
    assert wrong == []


def test_shared_suite_code_imports_no_suite() -> None:
    shared = [f"{a} imports {b}" for a, b in arrows()
              if a.split(".")[1] in ("tasks", "builders") and suite(a) is None
              and suite(b) is not None]
    assert shared == []

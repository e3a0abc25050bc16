"""User errors and bugs (issue 44): the command line prints a :class:`UserError` as one line and
nothing else; any other exception, a builtin ``ValueError`` or ``KeyError`` included, is a bug
that goes on with its traceback, followed by a line asking to report it. Every exception svgeval
defines derives from :class:`SvgevalError`."""

from __future__ import annotations

import ast
import builtins
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer

import svgeval
from svgeval.cli import errors
from svgeval.cli.errors import user_errors
from svgeval.errors import SvgevalError, UserError

PACKAGE = Path(svgeval.__file__).parent
BUILTIN_EXCEPTIONS = {name for name, value in vars(builtins).items()
                      if isinstance(value, type) and issubclass(value, BaseException)}


def handled_names(function: str) -> list[str]:
    """The class names the ``except`` clauses of ``function`` in cli/errors.py catch."""
    tree = ast.parse(Path(errors.__file__).read_text(encoding="utf-8"))
    body = next(node for node in ast.walk(tree)
                if isinstance(node, ast.FunctionDef) and node.name == function)
    names: list[str] = []
    for handler in ast.walk(body):
        if isinstance(handler, ast.ExceptHandler) and handler.type is not None:
            caught = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
            names += [ast.unparse(node) for node in caught]
    return names


def test_the_error_handler_catches_no_builtin_exception_as_a_user_error() -> None:
    caught = handled_names("user_errors")
    assert caught == ["UserError", "KeyboardInterrupt"]  # the interrupt: exit 130, not an error
    assert [name for name in caught if name in BUILTIN_EXCEPTIONS] == ["KeyboardInterrupt"]


@pytest.mark.parametrize("builtin", [ValueError, KeyError, FileNotFoundError, RuntimeError,
                                     TypeError, OSError])
def test_a_builtin_error_goes_through_the_handler_unchanged(builtin: type[Exception]) -> None:
    with pytest.raises(builtin, match="an internal invariant"), user_errors():
        raise builtin("an internal invariant")


def test_a_user_error_is_one_line_and_exit_code_1(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(typer.Exit) as exited, user_errors():
        raise UserError("--thing 3: choose 1 or 2")
    assert exited.value.exit_code == 1
    assert capsys.readouterr().err.strip().splitlines() == ["error: --thing 3: choose 1 or 2"]


CRASHING_LIST = (
    "import sys\n"
    "import svgeval.tasks\n"
    "def broken():\n"
    "    raise ValueError('an internal invariant broke')\n"
    "svgeval.tasks.tasks_by_suite = broken\n"
    "sys.argv = ['svgeval', 'list', 'tasks']\n"
    "from svgeval.cli.main import main\n"
    "main()\n"
)
"""``svgeval list tasks`` with a bug in the tasks' listing: a ValueError svgeval raised itself."""


@pytest.mark.e2e  # a fresh interpreter
def test_a_bug_keeps_its_traceback_and_asks_to_be_reported() -> None:
    done = subprocess.run([sys.executable, "-c", CRASHING_LIST], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "COLUMNS": "200"}, check=False)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert "Traceback" in done.stderr and "ValueError: an internal invariant broke" in lines
    assert "please report it at" in lines[-1] and lines[-1].endswith("with the traceback above")
    assert not [line for line in done.stderr.splitlines() if line.startswith("error:")]


def test_the_python_api_raises_the_same_classes(tmp_path: Path) -> None:
    from svgeval.api import evaluate
    from svgeval.registry import UnknownName

    with pytest.raises(UnknownName) as raised:
        evaluate("nosuchtask", "identity", out=tmp_path / "run")
    assert isinstance(raised.value, UserError) and isinstance(raised.value, KeyError)
    assert str(raised.value).startswith("unknown task 'nosuchtask'")  # no KeyError quotes


def exception_classes() -> list[tuple[str, ast.ClassDef]]:
    """Every class in svgeval whose bases name a builtin exception, with its module's path."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                    ast.unparse(base) in BUILTIN_EXCEPTIONS for base in node.bases):
                found.append((str(path.relative_to(PACKAGE)), node))
    return found


def test_every_exception_svgeval_defines_derives_from_its_root() -> None:
    """A class may keep a builtin base (callers catch ``ValueError``), after svgeval's own:
    only :class:`SvgevalError` itself derives from ``Exception`` alone."""
    classes = exception_classes()
    assert len(classes) > 15  # the scan sees them
    rootless = [f"{path}:{node.name}" for path, node in classes
                if ast.unparse(node.bases[0]) in BUILTIN_EXCEPTIONS]
    assert rootless == ["errors.py:SvgevalError"]


def test_the_layers_user_facing_errors_are_user_errors() -> None:
    from svgeval.metrics.registry import MetricUnavailable
    from svgeval.models.base import InvalidModelSetting, ModelUnavailable
    from svgeval.registry import UnknownName
    from svgeval.render.backends import RendererUnavailable, UnknownRenderer
    from svgeval.render.pool import RenderWorkersLost
    from svgeval.report.runs import ReportError
    from svgeval.runner.executors import ExecutorError
    from svgeval.runner.identity import RunConflict
    from svgeval.runner.metric_memory import MetricsOutOfMemory
    from svgeval.runner.run_dir import CorruptRecord
    from svgeval.tasks.download import DataUnavailable
    from svgeval.tasks.options import InvalidOption

    user_facing = (UnknownName, RendererUnavailable, UnknownRenderer, RenderWorkersLost,
                   MetricUnavailable, InvalidOption, DataUnavailable, ModelUnavailable,
                   InvalidModelSetting, RunConflict, ExecutorError, MetricsOutOfMemory,
                   CorruptRecord, ReportError)
    assert all(issubclass(cls, UserError) and issubclass(cls, SvgevalError)
               for cls in user_facing)

"""An instant command line (issue 30): ``svgeval --help``, ``--version`` and a command's help
import the command line's own modules and no more; each command is imported when it runs.

Guarded by the modules a fresh interpreter has imported when the command exits, not by timing
(python -m bench cli-startup times them).
"""

from __future__ import annotations

import inspect
import json
import subprocess
import sys

import pytest
import typer

from svgeval.cli import app
from svgeval.cli.root import COMMANDS, load_command

IMPORTED = (
    "import json, sys\n"
    "sys.argv = ['svgeval', *{args!r}]\n"
    "from svgeval.cli.main import main\n"
    "try:\n    main()\nexcept SystemExit:\n    pass\n"
    "print(json.dumps(sorted(sys.modules)), file=sys.stderr)\n"
)

COMMAND_LINE = {"svgeval", "svgeval.cli", "svgeval.cli.errors", "svgeval.cli.main",
                "svgeval.cli.root", "svgeval.cli.suites", "svgeval.errors", "svgeval.registry"}
"""svgeval's modules that every command imports: the group, its errors (and the error classes),
the registry's names."""

RUN_FLAGS = {"svgeval.cli.run", "svgeval.run_request", "svgeval.cli.executor",
             "svgeval.cli.judge"}
"""What declaring ``run``'s and ``score``'s flags adds (the run request, whose defaults the flags
show)."""

HEAVY = ("numpy", "lxml", "PIL", "cairosvg", "httpx", "torch", "svgeval.runner",
         "svgeval.models", "svgeval.tasks", "svgeval.metrics", "svgeval.report",
         "svgeval.render.backends")


def imported_by(*args: str) -> set[str]:
    """The modules of a fresh interpreter that ran ``svgeval ARGS``."""
    done = subprocess.run([sys.executable, "-c", IMPORTED.format(args=list(args))],
                          capture_output=True, text=True, timeout=120, check=True)
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


@pytest.mark.e2e  # a fresh interpreter
@pytest.mark.parametrize(("args", "own"), [
    (("--help",), COMMAND_LINE),
    (("--version",), COMMAND_LINE),
    (("run", "--help"), COMMAND_LINE | RUN_FLAGS),
    (("score", "-h"), COMMAND_LINE | RUN_FLAGS),
])
def test_help_and_version_import_the_command_line_alone(args: tuple[str, ...],
                                                        own: set[str]) -> None:
    modules = imported_by(*args)
    assert {name for name in modules if name.split(".")[0] == "svgeval"} == own
    assert [name for name in HEAVY if name in modules] == []
    # 300-450 modules with typer, click and rich; numpy alone would add about 150
    assert len(modules) < 550


@pytest.mark.e2e  # a fresh interpreter
def test_svgeval_help_imports_no_pydantic() -> None:
    """typer imports pydantic to convert option values (``--version``), not to print help."""
    assert "pydantic" not in imported_by("--help")


@pytest.mark.e2e  # a fresh interpreter
def test_list_tasks_imports_neither_the_runner_nor_models() -> None:
    modules = imported_by("list", "tasks")
    assert "svgeval.tasks.svgenius" in modules  # the suites it lists
    assert [name for name in ("svgeval.runner", "svgeval.models", "svgeval.report", "torch",
                              "httpx") if name in modules] == []


@pytest.mark.parametrize("name", list(COMMANDS))
def test_help_lists_each_command_with_its_own_summary(name: str) -> None:
    """The table ``svgeval --help`` reads says what the command's own help says first."""
    command = load_command(name)
    assert command.name == name
    assert inspect.cleandoc(command.help).split("\n\n")[0] == COMMANDS[name].summary


def test_help_reads_the_same_before_and_after_the_commands_are_imported(
    capsys: pytest.CaptureFixture[str],
) -> None:
    group = typer.main.get_command(app)

    def help_text() -> str:
        group.main(["--help"], prog_name="svgeval", standalone_mode=False)
        return capsys.readouterr().out

    lazy = help_text()
    for name in COMMANDS:  # what running the command mounts
        group.add_command(load_command(name), name)  # type: ignore[attr-defined]
    assert "svgeval.cli.reports" in sys.modules
    assert help_text() == lazy
    assert "Commands" in lazy and all(f" {name} " in lazy for name in COMMANDS)

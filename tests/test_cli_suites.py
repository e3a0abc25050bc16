"""Each suite's commands are mounted from the svgeval.commands entry points, imported only when
asked for, and run under the command line's one-line errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from svgeval.cli import app
from svgeval.registry import own_entry_points

SUITES = {point.value for point in own_entry_points("svgeval.tasks")}


def _run(argv: list[str]) -> tuple[str, list[str]]:
    """The output of ``svgeval ARGV`` in a fresh interpreter and the suite and builder modules
    it imported."""
    code = (f"import sys; sys.argv = {['svgeval', *argv]!r}; from svgeval.cli.main import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print('IMPORTED', *sorted(m for m in sys.modules if m.startswith('svgeval.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    text, _, imported = out.rpartition("IMPORTED")
    modules = imported.split()
    return text, [m for m in modules if m in SUITES or m.startswith("svgeval.builders")]


@pytest.mark.e2e  # a fresh interpreter
def test_help_names_every_suites_commands_without_importing_a_suite() -> None:
    text, imported = _run(["--help"])
    for name in ("sarena", "svgeditbench", "svgenius", "vectorgym"):
        assert f"Tools of the {name} suite." in text
    assert imported == []


@pytest.mark.e2e  # a fresh interpreter
def test_a_suites_commands_import_that_suite_alone() -> None:
    text, imported = _run(["svgeditbench", "--help"])
    assert "SVGEditBench data tools." in text and "build" in text
    assert "svgeval.builders.svgeditbench.cli" in imported
    assert not [m for m in imported if "svgenius" in m or "vectorgym" in m or "sarena" in m]


def test_a_suite_command_s_error_is_one_line_and_exit_code_1(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["vectorgym", "build", str(tmp_path), "--out", "x"])
    assert result.exit_code == 1
    assert result.output.strip() == f"error: no usable .svg files in {tmp_path}"

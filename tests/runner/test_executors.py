"""The executor flags without Ray: the local executor never imports it, and ``--executor ray``
without Ray installed, or ``--ray-address`` without it, is one line naming what to do."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from svgeval.cli import app


def one_line_error(args: list[str]) -> str:
    result = CliRunner().invoke(app, args)
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 1 and len(lines) == 1 and lines[0].startswith("error:"), lines
    return lines[0]


def test_missing_ray_names_the_extra(
    demo_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails as if not installed
    line = one_line_error(["run", "svgeditbench", "--data", str(demo_data), "--out",
                           str(tmp_path / "r"), "--executor", "ray"])
    assert line == "error: --executor ray needs Ray: pip install 'svgeval[ray]'"
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (["--executor", "dask"], "error: --executor must be one of local, ray, got 'dask'"),
        (["--ray-address", "auto"], "error: --ray-address needs --executor ray"),
    ],
)
def test_bad_executor_flags_are_one_line(
    demo_data: Path, tmp_path: Path, flags: list[str], expected: str
) -> None:
    args = ["run", "svgeditbench", "--data", str(demo_data), "--out", str(tmp_path / "r")]
    assert one_line_error([*args, *flags]) == expected


def test_a_local_run_never_imports_ray(demo_data: Path, tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from svgeval.cli import app\n"
        f"args = ['run', 'svgeditbench', '--data', {str(demo_data)!r}, '--limit', '1',\n"
        f"        '--model', 'oracle', '--out', {str(tmp_path / 'r')!r}, '--render-workers', '1']\n"
        "try:\n"
        "    app(args)\n"
        "except SystemExit as end:\n"
        "    assert end.code == 0, end.code\n"
        "print('ray' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip().splitlines()[-1] == "False"

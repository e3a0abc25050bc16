"""The executor flags: the local executor never imports Ray; ``--executor ray`` without Ray
installed, ``--ray-address`` without it, or an address nobody listens on, is one line naming what
to do, before the run directory is touched."""

from __future__ import annotations

import socket
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


@pytest.mark.e2e
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


def test_an_unreachable_ray_address_is_one_line_at_once(demo_data: Path, tmp_path: Path) -> None:
    pytest.importorskip("ray")
    with socket.socket() as probe:  # a port nobody listens on once the socket is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    line = one_line_error(["run", "svgeditbench", "--data", str(demo_data), "--out",
                           str(tmp_path / "r"), "--executor", "ray", "--ray-address",
                           f"127.0.0.1:{port}"])
    assert line.startswith(f"error: cannot reach the Ray cluster at 127.0.0.1:{port} (")
    assert line.endswith("check --ray-address (the head node's HOST:PORT)")
    assert not (tmp_path / "r").exists()

"""The benchmark harness (``python -m bench``): every case runs at the smoke scale, on svgeval's
demo icons, and returns figures with a positive floor beside them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench import cases
from bench.measure import Skipped, needs

pytestmark = pytest.mark.e2e  # see the marker in pyproject.toml

ROOT = Path(__file__).resolve().parents[1]


def bench(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m bench ARGS`` from the repository root, as a user runs it."""
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "bench", *args], cwd=ROOT, text=True,
                          capture_output=True, env={**os.environ, "PYTHONPATH": path},
                          timeout=600, check=False)


def test_list_names_every_case_on_one_line() -> None:
    listed = bench("--list")
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert [line.split()[0] for line in lines] == cases.names()
    assert {"scoring", "rewards"} <= set(cases.names())


def test_a_missing_release_is_one_line_and_a_non_zero_exit(tmp_path: Path) -> None:
    done = bench("scoring", "--data", str(tmp_path / "nowhere"))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "pass --data FOLDER" in done.stderr


def test_a_missing_extra_skips_the_case_saying_what_it_needs() -> None:
    with pytest.raises(Skipped, match=r"^needs no_such_module \(pip install it\)$"):
        needs("json", "no_such_module", extra="pip install it")


class CaseChecks:
    """The smoke run of one case; the subclasses made below name it."""

    case = ""

    def test_returns_figures_beside_a_positive_floor(self) -> None:
        done = bench(self.case, "--json", "--smoke")
        assert done.returncode == 0, done.stderr[-2000:]
        result = json.loads(done.stdout)
        if result["skipped"] is not None:
            assert result["skipped"].startswith("needs ")
            pytest.skip(f"{self.case}: {result['skipped']}")
        figures = result["figures"]
        assert figures and all(isinstance(row["value"], (int, float)) for row in figures)
        floors = [row["floor"] for row in figures if row["floor"] is not None]
        assert floors and all(floor > 0 for floor in floors)
        assert all(row["ratio"] == pytest.approx(row["value"] / row["floor"])
                   for row in figures if row["floor"] is not None)


# a class per case, so that pytest-xdist (--dist loadscope) spreads the cases over its workers:
# one after another in one worker, they were the suite's longest unit (257 s of a 693 s run)
for _case in cases.names():
    _name = "TestCase" + "".join(part.capitalize() for part in _case.split("-"))
    globals()[_name] = type(_name, (CaseChecks,), {"case": _case})

"""A built-in sample is written by one process at a time: a second process that needs it while
the first writes waits and reads the first's folder (the animation track's videos take a minute
of browser time to draw, which two conformance workers drew twice)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

WRITER = textwrap.dedent('''
    import sys, time
    from pathlib import Path
    from svgeval.tasks.builtin import BuiltinSample, builtin_root

    def write(folder: Path) -> None:
        with open(sys.argv[1], "a") as log:
            log.write("written\\n")
        time.sleep(1.5)
        (folder / "sample.txt").write_text("one sample")

    print(builtin_root(BuiltinSample("slow", write, "a test's")))
''')


@pytest.mark.e2e
def test_two_processes_needing_one_sample_write_it_once(tmp_path: Path) -> None:
    (tmp_path / "slow_writer.py").write_text(WRITER)
    log = tmp_path / "writes.log"
    environment = {"SVGEVAL_CACHE": str(tmp_path / "cache"), "PYTHONPATH": str(tmp_path),
                   "PATH": "/usr/bin:/bin"}
    both = [subprocess.Popen([sys.executable, "-m", "slow_writer", str(log)], env=environment,
                             stdout=subprocess.PIPE, text=True) for _ in range(2)]
    folders = {process.communicate(timeout=120)[0].strip() for process in both}
    assert all(process.returncode == 0 for process in both)
    assert log.read_text().splitlines() == ["written"]
    (folder,) = folders
    assert (Path(folder) / "sample.txt").read_text() == "one sample"

"""What every benchmark script shares: the command line for the data folder, the machine line,
and a timed identity run of SVGEditBench."""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from svgeval.models.baselines import IdentityModel
from svgeval.runner import RunDir, Runner, RunSettings
from svgeval.tasks.base import CommonOptions
from svgeval.tasks.svgeditbench import SvgEditBench

SHARED_SVGEDITBENCH = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "svgeditbench"


def svgeditbench_arguments(description: str | None,
                           more: Callable[[argparse.ArgumentParser], None] | None = None,
                           ) -> argparse.Namespace:
    """``--data`` (the SVGEditBench release, ``../shared/data/svgeditbench`` by default) and the
    arguments ``more`` adds; prints the machine it runs on."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--data", type=Path, default=SHARED_SVGEDITBENCH)
    if more is not None:
        more(parser)
    args = parser.parse_args()
    print(machine_line())
    return args


def machine_line() -> str:
    """The machine a bench runs on: architecture, cores, Python, load average."""
    return (f"machine: {platform.machine()}, {os.cpu_count() or 1} cores, "
            f"Python {platform.python_version()}, load average {os.getloadavg()[0]:.2f}")


def compile_svgeval() -> None:
    """Compile svgeval's modules to bytecode, as ``pip install`` does (an editable install under
    ``PYTHONDONTWRITEBYTECODE=1`` would compile them from source in every timed process), and
    say which svgeval is timed."""
    import compileall

    import svgeval

    folder = Path(svgeval.__file__).parent
    compileall.compile_dir(folder, quiet=1)
    print(f"svgeval at {folder}")


def identity_run_rate(data: Path, settings: RunSettings) -> tuple[int, float]:
    """(samples, samples/s) of the identity model on the SVGEditBench release ``data``, run by
    :class:`Runner` with ``settings`` into a scratch directory (loading the data not timed)."""
    with tempfile.TemporaryDirectory() as scratch:
        runner = Runner(SvgEditBench(CommonOptions(data=data)), IdentityModel(),
                        RunDir(Path(scratch)), settings)
        resumed = runner.prepare(resume=False)
        started = time.perf_counter()
        summary = asyncio.run(runner.run(resumed))
        elapsed = time.perf_counter() - started
    return summary.n, summary.n / elapsed

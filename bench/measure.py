"""What every case shares: its scale, its figures, the machine line, timing helpers and the
SVGEditBench data it reads (the release, or one built from svgeval's demo icons)."""

from __future__ import annotations

import os
import platform
import re
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib.util import find_spec
from pathlib import Path
from typing import TypeVar

REPOSITORY = Path(__file__).resolve().parents[1]
SHARED_DATA = REPOSITORY.parent / "shared" / "data"
"""The official releases, ``../shared/data`` from the repository root, as the tests find them."""

T = TypeVar("T", int, float, str)


class Skipped(Exception):
    """A case that cannot run here: its message says what it needs ("needs torch")."""


class BenchError(Exception):
    """A user's error (a missing data folder, a bad option): one line, a non-zero exit."""


@dataclass(frozen=True)
class Scale:
    """How large a case runs: ``smoke`` (a few seconds on the demo icons, for the tests) or in
    full; ``data`` the release folder (``--data``); ``options`` the case's own settings
    (``--set NAME=VALUE``); ``workdir`` a scratch folder the harness removes afterwards."""

    workdir: Path
    smoke: bool = False
    data: Path | None = None
    options: Mapping[str, str] = field(default_factory=dict)

    def pick(self, name: str, full: T, smoke: T) -> T:
        """Option ``name``: as set with ``--set``, else ``smoke`` at the smoke scale, else
        ``full`` (converted to the type of ``full``)."""
        if name in self.options:
            try:
                return type(full)(self.options[name])
            except ValueError:
                raise BenchError(f"--set {name}={self.options[name]}: expected a "
                                 f"{type(full).__name__}") from None
        return smoke if self.smoke else full


@dataclass
class Figure:
    """One measured figure and the floor measured beside it in the same unit (``ratio`` is
    figure / floor); ``most``/``least``: the ratio's target, where the issue sets one."""

    name: str
    value: float
    unit: str
    floor: float | None = None
    floor_name: str = ""
    most: float | None = None
    least: float | None = None

    @property
    def ratio(self) -> float | None:
        return None if self.floor is None or self.floor == 0 else self.value / self.floor

    @property
    def target(self) -> str:
        """"met", "not met" or "" (no target)."""
        ratio = self.ratio
        if ratio is None or (self.most is None and self.least is None):
            return ""
        met = ((self.most is None or ratio <= self.most)
               and (self.least is None or ratio >= self.least))
        bound = f"<= {self.most:g}" if self.most is not None else f">= {self.least:g}"
        return f"{'met' if met else 'not met'} ({bound})"


@dataclass
class Figures:
    """What a case returns: its figures (each with the floor measured beside it, where it has
    one) and lines of context (sizes, load averages)."""

    rows: list[Figure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, name: str, value: float, unit: str, floor: float | None = None,
            floor_name: str = "", **target: float) -> None:
        self.rows.append(Figure(name, value, unit, floor, floor_name, **target))

    def note(self, line: str) -> None:
        self.notes.append(line)


def needs(*modules: str, extra: str) -> None:
    """Raise :class:`Skipped` unless every module in ``modules`` can be imported (``extra``
    names the install: ``pip install -e ".[models]"``)."""
    missing = [name for name in modules if find_spec(name) is None]
    if missing:
        raise Skipped(f"needs {', '.join(missing)} ({extra})")


def machine_line() -> str:
    """The machine a case runs on: architecture, cores, Python, load average."""
    return (f"{platform.machine()}, {os.cpu_count() or 1} cores, Python "
            f"{platform.python_version()}, load average {load()}")


def load() -> str:
    """The 1-, 5- and 15-minute load averages."""
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def seconds_of(call: Callable[[], object]) -> float:
    """Wall seconds of ``call()``."""
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def compile_svgeval() -> Path:
    """Compile svgeval's modules to bytecode, as ``pip install`` does (an editable install
    under ``PYTHONDONTWRITEBYTECODE=1`` would compile them from source in every timed
    process, about 0.1 s of its start-up); the svgeval timed."""
    import compileall

    import svgeval

    folder = Path(svgeval.__file__).parent
    compileall.compile_dir(folder, quiet=1)
    return folder


PEAK_RSS = """
import os, subprocess, sys, time
started = time.perf_counter()
child = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_, status, usage = os.wait4(child.pid, 0)
seconds = time.perf_counter() - started
cpu = usage.ru_utime + usage.ru_stime
open(sys.argv[1], "w").write(f"{os.waitstatus_to_exitcode(status)} {usage.ru_maxrss} {seconds} {cpu}")
"""
"""Runs a command and writes its exit code, peak RSS (KiB), wall time and CPU time (user and
system: the process's own; render workers, children of the forkserver, are not counted). Linux
carries the high-water mark of the memory a process was started from across ``exec``, so a
command started straight from the harness would report the harness's peak: it is started from
this small process instead."""


@dataclass(frozen=True)
class Timed:
    """A fresh process's wall seconds, peak RSS (MiB) and CPU seconds of its own."""

    seconds: float
    rss_mib: float
    cpu_s: float


def timed_process(command: list[str], report: Path, env: Mapping[str, str] | None = None
                  ) -> Timed:
    """Run ``command`` from :data:`PEAK_RSS`; a failure raises."""
    subprocess.run([sys.executable, "-c", PEAK_RSS, str(report), *command], check=True,
                   env=None if env is None else {**os.environ, **env})
    status, peak_kib, seconds, cpu = report.read_text().split()
    if int(status) != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({status})")
    return Timed(float(seconds), int(peak_kib) / 1024, float(cpu))


def svgeval_run(data: Path, out: Path, *options: str, model: str = "identity") -> Timed:
    """``svgeval run svgeditbench`` on ``data`` into ``out`` as a user runs it (``python -m
    svgeval``, a fresh interpreter: start-up, imports and the worker pool included)."""
    command = [sys.executable, "-m", "svgeval", "run", "svgeditbench", "--model", model,
               "--data", str(data), "--out", str(out), *options]
    return timed_process(command, out.with_name(out.name + ".rss"))


SMOKE_ICONS = 4
"""Demo icons in the smoke scale's SVGEditBench release: six cases each, one a task (the smoke
test runs every case, each drawing and scoring the release once or more, in a fresh process)."""


def svgeditbench(scale: Scale) -> Path:
    """The SVGEditBench release: ``--data``, else at the smoke scale a release built from
    :data:`SMOKE_ICONS` of the demo icons (24 cases), else ``../shared/data/svgeditbench``."""
    if scale.data is not None:
        folder = scale.data
    elif scale.smoke:
        folder = scale.workdir / "demo-svgeditbench"
        if not folder.is_dir():
            from svgeval.builders.svgeditbench.builder import build_cases, write_release
            from svgeval.svg.demo_corpus import write_demo_corpus

            names = write_demo_corpus(scale.workdir / "demo-icons")
            icons = sorted((scale.workdir / "demo-icons").glob("*.svg"))[:SMOKE_ICONS]
            write_release(build_cases(icons, names=names), folder)
    else:
        folder = SHARED_DATA / "svgeditbench"
    if not folder.is_dir():
        raise BenchError(f"no SVGEditBench release at {folder}: pass --data FOLDER")
    return folder


def svgenius(scale: Scale) -> Path:
    """The SVGenius release (its root, holding ``src/``): ``--data``, else at the smoke scale
    svgeval's built-in sample, else ``../shared/data/svgenius``."""
    if scale.data is not None:
        folder = scale.data
    elif scale.smoke:
        folder = scale.workdir / "demo-svgenius"
        if not folder.is_dir():
            from svgeval.builders.svgenius.builtin import write

            write(folder)
    else:
        folder = SHARED_DATA / "svgenius"
    if not (folder / "src" / "data").is_dir():
        raise BenchError(f"no SVGenius release at {folder}: pass --data FOLDER")
    return folder


def copy_release(source: Path, target: Path, copies: int) -> None:
    """``copies`` copies of every SVGEditBench case, ``<id>_<k>``, each SVG opened by a
    ``<!--k-->`` comment, so that no render is shared between copies."""
    for query in source.glob("*/query/*.txt"):
        answer = query.parent.parent / "answer" / f"{query.stem}.svg"
        for k in range(copies):
            for path, text in ((query, re.sub(r"```svg\n", f"```svg\n<!--{k}-->",
                                              query.read_text())),
                               (answer, f"<!--{k}-->" + answer.read_text())):
                out = target / path.parent.relative_to(source) / f"{path.stem}_{k}{path.suffix}"
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_text(text)


def identity_pairs(data: Path) -> dict[str, tuple[str, str]]:
    """Sample id -> (input SVG, answer SVG): what an identity run of SVGEditBench compares."""
    from svgeval.tasks.base import CommonOptions
    from svgeval.tasks.svgeditbench import SvgEditBench

    samples = SvgEditBench(CommonOptions(data=data)).load()
    return {s.id: (s.input_svg or "", s.target.answer_svg) for s in samples}


def identity_release(scale: Scale, copies: int, figures: Figures
                     ) -> tuple[Path, dict[str, tuple[str, str]], list[str]]:
    """What the identity-scoring cases start from: svgeval compiled (:func:`compile_svgeval`),
    ``copies`` copies of the release in the scratch folder (:func:`copy_release`); (its folder,
    its :func:`identity_pairs`, the distinct SVGs they draw), noted in ``figures``."""
    figures.note(f"svgeval at {compile_svgeval()}")
    data = scale.workdir / "release"
    copy_release(svgeditbench(scale), data, copies)
    pairs = identity_pairs(data)
    distinct = sorted({svg for pair in pairs.values() for svg in pair})
    figures.note(f"{len(pairs)} samples, {len(distinct)} distinct SVGs")
    return data, pairs, distinct


def test_helpers() -> None:
    """Put ``tests/`` on ``sys.path``, for the tests' helpers (``support.*``, and the reward
    tests' ``rewards`` helpers): the one place the harness reaches into the tests."""
    folder = str(REPOSITORY / "tests")
    if folder not in sys.path:
        sys.path.insert(0, folder)

"""Start-up time of the ``svgeval`` command against ``python -c pass`` (issue 30, "an instant
command line").

    python -m bench cli-startup [--set repeats=5]

(At the smoke scale, only ``svgeval --help``, once.)

Each command is started ``repeats`` times as a new process, as a user's shell starts it; the
best wall time is kept (the least disturbed by other processes), beside the floor: the same
interpreter running ``python -c pass``. It also counts the modules each command imports
(``sys.modules`` at exit), the measure the tests guard.
"""

from __future__ import annotations

import subprocess
import sys
import time

from bench.measure import Figures, Scale, load

COMMANDS: dict[str, list[str]] = {
    "svgeval --help": ["-m", "svgeval.cli", "--help"],
    "svgeval --version": ["-m", "svgeval.cli", "--version"],
    "svgeval run --help": ["-m", "svgeval.cli", "run", "--help"],
    "svgeval list tasks": ["-m", "svgeval.cli", "list", "tasks"],
}
FLOOR = ["-c", "pass"]

COUNT_MODULES = (
    "import atexit, os, sys\n"
    "atexit.register(lambda: os.write(2, f'MODULES {{len(sys.modules)}}\\n'.encode()))\n"
    "sys.argv = ['svgeval', *{args!r}]\n"
    "from svgeval.cli.main import main\n"
    "main()\n"
)


def best_time(args: list[str], repeats: int) -> float:
    """The best wall time of ``python ARGS`` over ``repeats`` runs, in seconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run([sys.executable, *args], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - start)
    return min(times)


def modules_imported(args: list[str]) -> int:
    """The number of modules in ``sys.modules`` when the command exits."""
    code = COUNT_MODULES.format(args=args[2:])
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    for line in done.stderr.splitlines():
        if line.startswith("MODULES "):
            return int(line.split()[1])
    raise RuntimeError(f"no module count from {args}: {done.stderr[-300:]}")


def run(scale: Scale) -> Figures:
    repeats = scale.pick("repeats", 5, 1)
    figures = Figures()
    figures.note(f"load average {load()} at the start")
    floor = best_time(FLOOR, repeats)
    chosen = list(COMMANDS)[:1] if scale.smoke else list(COMMANDS)
    for name, args in ((name, COMMANDS[name]) for name in chosen):
        figures.add(f"{name} (best of {repeats})", best_time(args, repeats), "s", floor,
                    "python -c pass")
        figures.add(f"{name}: modules imported", modules_imported(args), "modules")
    figures.note(f"load average {load()} at the end")
    return figures

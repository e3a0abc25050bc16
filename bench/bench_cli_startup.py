"""Start-up time of the ``svgeval`` command (issue 30, "an instant command line").

Each command is started ``--repeats`` times as a new process, as a user's shell starts it; the
best wall time is kept (the least disturbed by other processes), beside the floor: the same
interpreter running ``python -c pass``. It also counts the modules each command imports
(``sys.modules`` at exit), the measure the tests guard.

    .venv/bin/python bench/bench_cli_startup.py --repeats 5
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

COMMANDS: dict[str, list[str]] = {
    "python -c pass (floor)": ["-c", "pass"],
    "svgeval --help": ["-m", "svgeval.cli", "--help"],
    "svgeval --version": ["-m", "svgeval.cli", "--version"],
    "svgeval run --help": ["-m", "svgeval.cli", "run", "--help"],
    "svgeval list tasks": ["-m", "svgeval.cli", "list", "tasks"],
}

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


def modules_imported(args: list[str]) -> int | None:
    """The number of modules in ``sys.modules`` when the command exits (None for the floor)."""
    if args[:1] != ["-m"]:
        return None
    code = COUNT_MODULES.format(args=args[2:])
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    for line in done.stderr.splitlines():
        if line.startswith("MODULES "):
            return int(line.split()[1])
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    repeats = parser.parse_args().repeats
    print(f"load average at start: {os.getloadavg()[0]:.1f}, cores: {os.cpu_count()}")
    print(f"| command | best of {repeats} (s) | x floor | modules |")
    print("| --- | --- | --- | --- |")
    floor = None
    for name, args in COMMANDS.items():
        seconds = best_time(args, repeats)
        floor = floor or seconds
        count = modules_imported(args)
        print(f"| `{name}` | {seconds:.3f} | {seconds / floor:.0f} | {count or ''} |")
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()

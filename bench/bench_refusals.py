"""``svgeval run`` against a gateway that refuses requests at random with 429, and fault-free.

Run by hand:  .venv/bin/python bench/bench_refusals.py [--data ../shared/data/svgeditbench]
              [--src SRC ...] [--cases fault-free refuse-10 ...] [--give-up-s 600]

The server is ``python -m support.local_servers gateway`` (run from ``tests/``) in its own process on 127.0.0.1: each answer
takes ``--delay`` (0.1 s), it answers at most ``--capacity`` (8) requests at once and refuses
more with 429. The cases:

* ``fault-free``: nothing else.
* ``refuse-10``: 10 % of the requests refused at random with 429 (``random.Random(1)``, drawn
  in call order), whatever the load.
* ``refuse-10-retry-after``: the same, each 429 with ``Retry-After: 1``.
* ``refuse-90``: 90 % refused, ``--limit 5`` (30 samples).
* ``saturated``: no random refusal, but a capacity of 2 for the run's 8 requests at once.

Each case is ``python -m svgeval.cli run svgeditbench`` (``--concurrency 8``, other flags at
their defaults) in a fresh process with ``PYTHONPATH=SRC``, stopped after ``--give-up-s``.
Printed per case: wall time, exit code, samples answered, HTTP requests made (from the server's
log: answered, refused at random, refused at capacity), the answer that took longest (its
``timing`` in ``responses.jsonl``, retries and waits included) and ``model_report.concurrency``
of ``results.json``. Each ``--src`` is an svgeval source folder, so that two commits are measured
in one run (default: this checkout's).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from common import svgeditbench_arguments

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from support.local_servers import read_log, running

SERVER = ("--delay", "0.1", "--capacity", "8")
CASES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # name: (server options, run options)
    "fault-free": ((), ()),
    "refuse-10": (("--refuse", "0.1", "--seed", "1"), ()),
    "refuse-10-retry-after": (("--refuse", "0.1", "--seed", "1", "--retry-after", "1"), ()),
    "refuse-90": (("--refuse", "0.9", "--seed", "1"), ("--limit", "5")),
    "saturated": (("--capacity", "2"), ()),
}


def run_case(src: Path, data: Path, name: str, give_up_s: float) -> str:
    """One case: its line of numbers."""
    server_options, run_options = CASES[name]
    with tempfile.TemporaryDirectory() as scratch:
        log, out = Path(scratch) / "calls.jsonl", Path(scratch) / "run"
        with running("gateway", *SERVER, *server_options, "--log", str(log)) as server:
            command = [sys.executable, "-m", "svgeval.cli", "run", "svgeditbench",
                       "--data", str(data), "--out", str(out), "--model",
                       "openai-compatible:local", "--base-url", server.base_url,
                       "--concurrency", "8", *run_options]
            started = time.perf_counter()
            try:
                finished = subprocess.run(
                    command, env={**os.environ, "PYTHONPATH": str(src)}, capture_output=True,
                    text=True, timeout=give_up_s, check=False)
                code = str(finished.returncode)
            except subprocess.TimeoutExpired:
                code = f"still running, stopped after {give_up_s:g} s"
            wall_s = time.perf_counter() - started
        calls = Counter(call["outcome"] for call in read_log(log))
        slowest = max((json.loads(line)["timing"] for line in
                       (out / "responses.jsonl").read_text().splitlines()),
                      key=lambda timing: timing["total_s"], default=None)
        results_file = out / "results.json"
        if results_file.exists():
            results = json.loads(results_file.read_text())
            answered = f"{results['n_answered']}/{results['n_expected']}"
            concurrency = results["model_report"].get("concurrency", "never lowered")
        else:
            answered = f"{(out / 'responses.jsonl').read_text().count(chr(10))} answers written"
            concurrency = "no results.json"
    longest = (f"{slowest['total_s']:.1f} s, {slowest['attempts']} attempts"
               if slowest is not None else "none")
    return (f"| {name} | {wall_s:.1f} s | {code} | {answered} | {calls['answered']} / "
            f"{calls['refused']} / {calls['saturated']} | {longest} | {concurrency} |")


def main() -> None:
    def more(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--src", type=Path, action="append", default=[],
                            help="svgeval source folder to run (repeatable)")
        parser.add_argument("--cases", nargs="+", choices=list(CASES), default=list(CASES))
        parser.add_argument("--give-up-s", type=float, default=600.0)

    args = svgeditbench_arguments(__doc__.split("\n", 1)[0], more)
    sources = [p.resolve() for p in args.src] or [Path(__file__).resolve().parents[1] / "src"]
    for src in sources:
        print(f"\nsvgeval at {src}")
        print("| case | wall | exit | answered | requests: answered / refused at random / "
              "refused at capacity | slowest answer | concurrency |")
        print("|---|---:|---|---|---|---|---|")
        for name in args.cases:
            print(run_case(src, args.data, name, args.give_up_s), flush=True)


if __name__ == "__main__":
    main()

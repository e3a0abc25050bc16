"""``svgeval run`` against a gateway that refuses requests at random with 429, against the
fault-free run.

    python -m bench refusals [--data ../shared/data/svgeditbench]
        [--set cases=fault-free,refuse-10,...] [--set give_up_s=600] [--set src=SRC]

The server is the tests' ``support.local_servers gateway`` in its own process on 127.0.0.1:
each answer takes 0.1 s, it answers at most 8 requests at once and refuses more with 429. The
cases:

* ``fault-free``: nothing else; the floor of the others.
* ``refuse-10``: 10 % of the requests refused at random with 429 (``random.Random(1)``, drawn
  in call order), whatever the load.
* ``refuse-10-retry-after``: the same, each 429 with ``Retry-After: 1``.
* ``refuse-90``: 90 % refused, ``--limit 5`` (30 samples).
* ``saturated``: no random refusal, but a capacity of 2 for the run's 8 requests at once.

Each case is ``python -m svgeval.cli run svgeditbench`` (``--concurrency 8``, other flags at
their defaults) in a fresh process with ``PYTHONPATH=SRC`` (``src``: this checkout's by default,
so that two commits can be measured one after the other), stopped after ``give_up_s``. Its
figure is the wall time; the notes give its exit code, samples answered, HTTP requests made
(from the server's log: answered, refused at random, refused at capacity), the answer that took
longest (its ``timing`` in ``responses.jsonl``, retries and waits included) and
``model_report.concurrency`` of ``results.json``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from bench.measure import REPOSITORY, Figures, Scale, svgeditbench, test_helpers

SERVER = ("--delay", "0.1", "--capacity", "8")
CASES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # name: (server options, run options)
    "fault-free": ((), ()),
    "refuse-10": (("--refuse", "0.1", "--seed", "1"), ()),
    "refuse-10-retry-after": (("--refuse", "0.1", "--seed", "1", "--retry-after", "1"), ()),
    "refuse-90": (("--refuse", "0.9", "--seed", "1"), ("--limit", "5")),
    "saturated": (("--capacity", "2"), ()),
}


def run_case(src: Path, data: Path, name: str, give_up_s: float, limit: tuple[str, ...]
             ) -> tuple[float, str]:
    """One case: (wall seconds, its line of numbers)."""
    test_helpers()
    from support.local_servers import read_log, running

    server_options, run_options = CASES[name]
    with tempfile.TemporaryDirectory() as scratch:
        log, out = Path(scratch) / "calls.jsonl", Path(scratch) / "run"
        with running("gateway", *SERVER, *server_options, "--log", str(log)) as server:
            command = [sys.executable, "-m", "svgeval.cli", "run", "svgeditbench",
                       "--data", str(data), "--out", str(out), "--model",
                       "openai-compatible:local", "--base-url", server.base_url,
                       "--concurrency", "8", *(run_options or limit)]
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
    return wall_s, (f"{name}: exit {code}, answered {answered}, requests answered / refused at "
                    f"random / refused at capacity {calls['answered']} / {calls['refused']} / "
                    f"{calls['saturated']}, slowest answer {longest}, concurrency "
                    f"{concurrency}")


def run(scale: Scale) -> Figures:
    names = scale.pick("cases", ",".join(CASES), "fault-free,refuse-10").split(",")
    give_up_s = scale.pick("give_up_s", 600.0, 120.0)
    src = Path(scale.pick("src", str(REPOSITORY / "src"), str(REPOSITORY / "src"))).resolve()
    limit = ("--limit", "1") if scale.smoke else ()
    data = svgeditbench(scale)
    figures = Figures()
    figures.note(f"svgeval at {src}")
    measured = {name: run_case(src, data, name, give_up_s, limit)
                for name in dict.fromkeys(["fault-free", *names])}
    floor = measured["fault-free"][0]
    for name, (seconds, line) in measured.items():
        figures.add(f"{name}: svgeval run", seconds, "s", floor, "the fault-free run")
        figures.note(line)
    return figures

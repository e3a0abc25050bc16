"""Helpers of the report tests: run directories built offline through the command line.

:class:`SmallRun`: 12 SVGEditBench samples (two per subtask) answered from a replay file with known
outcomes: valid answers, answers with no SVG block, an SVG with a script and one whose image
points at a local HTTP server that records every request it gets. :class:`DemoRuns`: the identity
and oracle models on the 72 demo cases, and the identity model on cases drawn with another seed
(other data).
"""

from __future__ import annotations

import json
import shutil
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from svgeval.builders.svgeditbench.builder import build_cases, write_release
from svgeval.cli import app
from svgeval.svg.demo_corpus import write_demo_corpus

cli = CliRunner()


class RecordingServer:
    """A local HTTP server that records the path of every request it receives."""

    def __init__(self) -> None:
        requests = self.requests = []  # type: list[str]

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                requests.append(self.path)
                self.send_response(404)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def invoke(args: list[str]) -> tuple[int, str]:
    """Run the CLI; exit code and everything it printed."""
    result = cli.invoke(app, args)
    return result.exit_code, result.output


def invoke_streams(args: list[str]) -> tuple[int, str, str]:
    """Run the CLI; exit code, standard output and standard error apart."""
    result = cli.invoke(app, args)
    return result.exit_code, result.stdout, result.stderr


def one_line_error(args: list[str]) -> str:
    """The one line of a CLI command that must fail with exit code 1."""
    code, output = invoke(args)
    lines = [line for line in output.splitlines() if line.strip()]
    assert code == 1 and len(lines) == 1 and lines[0].startswith("error:"), output
    return lines[0]


def gallery_data(report: Path) -> dict[str, Any]:
    """``window.SVGEVAL`` of a report, parsed."""
    text = (report / "data" / "samples.js").read_text(encoding="utf-8")
    prefix = "window.SVGEVAL = "
    assert text.startswith(prefix)
    parsed: dict[str, Any] = json.loads(text[len(prefix):].rstrip().rstrip(";"))
    return parsed


def records(run: Path) -> list[dict[str, Any]]:
    """The lines of a run's ``samples.jsonl``, parsed."""
    lines = (run / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def make_data(root: Path, seed: int = 0) -> Path:
    """The 72 demo SVGEditBench cases in the release layout."""
    names = write_demo_corpus(root / "icons")
    cases = build_cases(sorted((root / "icons").glob("*.svg")), seed=seed, names=names)
    write_release(cases, root / "data")
    return root / "data"


@dataclass
class SmallRun:
    """A 12-sample run and the outcome each of its samples was built to have."""

    root: Path
    data: Path
    server: RecordingServer
    expected: dict[str, str] = field(default_factory=dict)
    """Sample id -> ``valid``, ``extract`` or ``render``."""
    hostile: set[str] = field(default_factory=set)
    """Ids whose answer is a hostile SVG."""


def answer(index: int, svg: str, server_url: str) -> tuple[str, str]:
    """The replay answer for the sample at ``index`` and the outcome it must get."""
    if index in (6, 7):
        return "I would rather not edit this icon.", "extract"
    if index == 8:
        hostile = svg.replace(">", "><script>window.pwned = 1;</script>", 1)
        return f"```svg\n{hostile}\n```", "render"
    if index == 9:
        image = f'<image href="{server_url}/leak.png" width="10" height="10"/>'
        return f"```svg\n{svg.replace('>', '>' + image, 1)}\n```", "render"
    return f"Here it is:\n```svg\n{svg}\n```", "valid"


@dataclass(frozen=True)
class DemoRuns:
    """Runs on the demo cases: identity, oracle, and identity on other data."""

    identity: Path
    oracle: Path
    other_data: Path


def edited_copy(run: Path, to: Path, **fields: str) -> Path:
    """A copy of the run directory ``run`` at ``to`` whose ``config.json`` and ``results.json``
    both say ``fields`` (a run of another task or task version)."""
    shutil.copytree(run, to)
    for name in ("config.json", "results.json"):
        record = json.loads((to / name).read_text(encoding="utf-8"))
        record.update(fields)
        (to / name).write_text(json.dumps(record), encoding="utf-8")
    return to

"""``svgeval serve-rewards`` as a user runs it: a separate process on 127.0.0.1 (port chosen by
the system, read from uvicorn's start-up line), its memory and its render workers visible."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

STARTED = re.compile(r"Uvicorn running on (http://127\.0\.0\.1:\d+)")


@dataclass
class Served:
    url: str
    process: subprocess.Popen[str]
    log: list[str]

    def rss_mib(self) -> float:
        """The server process's resident memory."""
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        kib = next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:"))
        return int(kib) / 1024

    def render_workers(self) -> list[int]:
        """Process ids of the render workers: children of the server's children (workers are
        forked by the forkserver, a child of the server)."""
        parents = _parents()
        children = {pid for pid, parent in parents.items() if parent == self.process.pid}
        return sorted(pid for pid, parent in parents.items() if parent in children)


def _parents() -> dict[int, int]:
    out: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        out[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    return out


@contextmanager
def serve_rewards(*options: str, start_timeout_s: float = 180.0,
                  env: dict[str, str] | None = None) -> Iterator[Served]:
    """Run ``python -m svgeval serve-rewards --port 0 OPTIONS`` until the block ends, with
    ``env`` added to this process's environment."""
    command = [sys.executable, "-m", "svgeval", "serve-rewards", "--host", "127.0.0.1",
               "--port", "0", *options]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True, env={**os.environ, "HF_HUB_OFFLINE": "1", **(env or {})})
    lines: queue.SimpleQueue[str | None] = queue.SimpleQueue()
    log: list[str] = []

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            log.append(line)
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    try:
        while True:
            line = lines.get(timeout=start_timeout_s)
            if line is None:
                raise RuntimeError("serve-rewards exited: " + "".join(log)[-2000:])
            found = STARTED.search(line)
            if found:
                break
        yield Served(found.group(1), process, log)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

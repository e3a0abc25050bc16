"""The render worker processes of a running program, read from /proc (Linux), to kill them as
the OOM killer would and to see whether they outlive their owner."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

FORKSERVER = "multiprocessing.forkserver"
"""In the command line of multiprocessing's forkserver process."""


def _stat(pid: int) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command name (state is [0], ppid [1])."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rpartition(")")[2].split()


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie, dead but not yet reaped, is not alive)."""
    fields = _stat(pid)
    return fields is not None and fields[0] not in ("Z", "X")


def children(pid: int) -> list[int]:
    """The live processes whose parent is ``pid``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat(int(entry))
            if fields is not None and int(fields[1]) == pid and alive(int(entry)):
                found.append(int(entry))
    return sorted(found)


def forkserver_of(owner: int) -> int | None:
    """The forkserver that ``owner`` started, if it runs."""
    for child in children(owner):
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if FORKSERVER.encode() in command:
            return child
    return None


def render_workers(owner: int = 0) -> list[int]:
    """The processes forked by ``owner``'s forkserver (its render workers); ``owner`` 0 is
    this process."""
    server = forkserver_of(owner or os.getpid())
    return children(server) if server is not None else []


def cpu_seconds(pid: int) -> float:
    """User and system CPU time ``pid`` has used (0 once it is gone)."""
    fields = _stat(pid)
    if fields is None:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def idle(pid: int) -> bool:
    """True when ``pid`` is asleep (a render worker waiting for its next task)."""
    fields = _stat(pid)
    return fields is not None and fields[0] == "S"


def wait_for(condition: Callable[[], object], timeout_s: float, step_s: float = 0.01) -> bool:
    """Poll ``condition`` until it returns something true or ``timeout_s`` pass."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step_s)
    return False


def exit_at_start(*_: object) -> None:
    """A worker initializer that ends the worker at once: a render process that cannot run."""
    os._exit(1)


def exit_at_start_once(marker: str) -> None:
    """A worker initializer that ends the worker at once when the file ``marker`` exists."""
    if Path(marker).exists():
        os._exit(1)


def hang_at_start_once(marker: str) -> None:
    """A worker initializer that, the first time (no file ``marker`` yet), never returns: a
    worker that takes no task, as one waiting on a channel lock a killed worker held."""
    if not Path(marker).exists():
        Path(marker).touch()
        time.sleep(3600)


def page_faults_of_freed_renders(rounds: int = 10) -> int:
    """Page faults of this process while it does ``rounds`` times what a 512 px render and its
    image terms do to memory: four blocks of 3 MB taken, written and freed together (after one
    round to warm up). 0 or close when freed memory is kept for the next round."""
    import resource

    def one_round() -> None:
        blocks = [bytearray(3 << 20) for _ in range(4)]  # zeroed, so every page is written
        del blocks

    one_round()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(rounds):
        one_round()
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before

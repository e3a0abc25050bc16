"""The browser render worker: one headless Chromium, serving the svgeval process over a pipe.

:class:`~svgeval.render.animation.BrowserRenderer` starts it as
``python -c "...; main()" PARENT_PID PROFILE [--sandbox]`` (:data:`WORKER_COMMAND`; the messages
must pickle under this module's name, not ``__main__``) in a session of its own,
so chromedriver and every Chromium process it starts share the worker's process group, which the
parent kills whole when a render runs past its time (killing chromedriver alone would leave
Chromium running). The worker reads requests on its standard input and answers on its standard
output; both are moved off descriptors 0 and 1 first, so nothing the browser prints can reach the
pipe. Messages are length-prefixed pickles (:func:`write_message`, :func:`read_message`).

The worker dies with its parent: a thread watches the parent's pid and, once the parent is gone
(a ``SIGKILL`` of the parent included), kills the rest of the group, removes the browser profile
and kills the group; ``SIGTERM`` kills the group. After any
error it answers with a :class:`WorkerError` and exits: the parent starts a fresh one.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import shutil
import signal
import struct
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from svgeval.render.browser_session import BrowserSession, PageSpec, find_browser

_HEADER = struct.Struct("!Q")
WORKER_COMMAND = "import sys; from svgeval.render.browser_worker import main; sys.exit(main())"
"""What ``python -c`` runs in a worker."""
PARENT_POLL_S = 0.2
"""How often the worker checks that its parent is alive."""


@dataclass(frozen=True)
class FrameRequest:
    """Draw ``svg`` (already checked by the parent) on ``page`` at each of ``times`` seconds."""

    svg: str
    page: PageSpec
    times: tuple[float, ...]


@dataclass(frozen=True)
class Ready:
    """The browser started, in ``seconds``."""

    seconds: float


@dataclass(frozen=True)
class WorkerError:
    """What went wrong in the worker: ``kind`` is ``start``, ``crash`` or ``render_error``."""

    kind: str
    message: str


def write_message(fd: int, message: object, deadline: float | None = None) -> None:
    """Send one message; with a ``deadline`` (``time.monotonic``), ``fd`` must be non-blocking
    and :class:`TimeoutError` is raised when the reader does not take it in time."""
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    for part in (_HEADER.pack(len(data)), data):
        view = memoryview(part)
        while view:
            if deadline is not None:
                _wait(fd, deadline, write=True)
            try:
                view = view[os.write(fd, view):]
            except BlockingIOError:
                continue


def read_message(fd: int, deadline: float | None = None) -> object:
    """Receive one message. Raises :class:`EOFError` when the writer is gone and, with a
    ``deadline``, :class:`TimeoutError` when nothing complete arrives in time."""
    (size,) = _HEADER.unpack(_read_exactly(fd, _HEADER.size, deadline))
    return pickle.loads(_read_exactly(fd, size, deadline))


def _read_exactly(fd: int, size: int, deadline: float | None) -> bytearray:
    buffer = bytearray(size)
    view = memoryview(buffer)
    done = 0
    while done < size:
        if deadline is not None:
            _wait(fd, deadline, write=False)
        count = os.readv(fd, [view[done:]])
        if count == 0:
            raise EOFError("the other end of the pipe is closed")
        done += count
    return buffer


def _wait(fd: int, deadline: float, *, write: bool) -> None:
    remaining = deadline - time.monotonic()
    ready = select.select([], [fd], [], max(remaining, 0))[1] if write else select.select(
        [fd], [], [], max(remaining, 0))[0]
    if not ready:
        raise TimeoutError


def _take_protocol_descriptors() -> tuple[int, int]:
    """Duplicate stdin and stdout for the protocol, then point 0 at /dev/null and 1 at 2."""
    requests, replies = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return requests, replies


def _kill_group(*_: object) -> None:
    os.killpg(0, signal.SIGKILL)


def _others_in_group() -> list[int]:
    """The other live processes of this worker's process group (read from /proc)."""
    group, me, found = os.getpgid(0), os.getpid(), []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rpartition(")")[2].split()
            pid = int(stat.parent.name)
            if int(fields[2]) == group and pid != me and fields[0] not in ("Z", "X"):
                found.append(pid)
    return found


def _die_with(parent: int, profile: Path) -> None:
    """Once ``parent`` is gone: kill the rest of the group, remove the profile, then die."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_S)
        deadline = time.monotonic() + 2.0
        while (others := _others_in_group()) and time.monotonic() < deadline:
            for pid in others:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.02)
        shutil.rmtree(profile, ignore_errors=True)
        _kill_group()

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _error_kind(error: BaseException) -> str:
    text = str(error).lower()
    lost = ("crash", "session deleted", "disconnected", "not reachable", "no such window")
    return "crash" if any(word in text for word in lost) else "render_error"


def _describe(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return f"{type(error).__name__}: {lines[0] if lines else ''}"[:300]


def serve(requests: int, replies: int, session: BrowserSession) -> int:
    """Answer frame requests until the parent closes the pipe (0) or a render fails (1)."""
    while True:
        try:
            request = read_message(requests)
        except EOFError:
            with contextlib.suppress(Exception):  # its parent may be killing it meanwhile
                session.close()
            return 0
        if not isinstance(request, FrameRequest):
            write_message(replies, WorkerError("render_error", f"unknown request {request!r}"))
            return 1
        try:
            frames = session.frames(request.svg, request.page, request.times)
        except Exception as error:  # noqa: BLE001 - every failure is reported, then the worker ends
            write_message(replies, WorkerError(_error_kind(error), _describe(error)))
            return 1
        write_message(replies, frames)


def main(argv: list[str] | None = None) -> int:
    """Start the browser, say :class:`Ready` (or why not), then :func:`serve`."""
    arguments = sys.argv[1:] if argv is None else argv
    parent, profile = int(arguments[0]), Path(arguments[1])
    requests, replies = _take_protocol_descriptors()
    signal.signal(signal.SIGTERM, _kill_group)
    _die_with(parent, profile)
    started = time.monotonic()
    try:
        session = BrowserSession(find_browser(), profile, sandbox="--sandbox" in arguments[2:])
    except Exception as error:  # noqa: BLE001 - the parent turns this into one line
        write_message(replies, WorkerError("start", _describe(error)))
        return 1
    write_message(replies, Ready(time.monotonic() - started))
    try:
        return serve(requests, replies, session)
    finally:
        shutil.rmtree(profile, ignore_errors=True)

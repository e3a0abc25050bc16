"""Witnesses for the browser tests: a TCP listener that counts connections and a FIFO that
notices being opened, plus the processes of a process group."""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Witnesses:
    """``url`` points at a listener on 127.0.0.1; ``fifo`` is a FIFO nobody should open."""

    url: str
    fifo: Path
    connections: list[tuple[str, int]] = field(default_factory=list)
    opens: list[float] = field(default_factory=list)


@contextlib.contextmanager
def witnesses(folder: Path) -> Iterator[Witnesses]:
    """Any TCP connection to ``url`` and any open of ``fifo`` (for reading: a writer can then
    open it too, which a watcher tries every 2 ms) is recorded until the block ends."""
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    server.settimeout(0.05)
    fifo = folder / "marker.png"
    os.mkfifo(fifo)
    seen = Witnesses(f"http://127.0.0.1:{server.getsockname()[1]}", fifo)
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                connection, address = server.accept()
            except TimeoutError:
                continue
            seen.connections.append(address)
            connection.close()

    def watch() -> None:
        while not stop.is_set():
            try:
                descriptor = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as error:  # ENXIO: no reader has it open
                assert error.errno == errno.ENXIO, error
                time.sleep(0.002)
                continue
            seen.opens.append(time.monotonic())
            os.close(descriptor)

    threads = [threading.Thread(target=work, daemon=True) for work in (accept, watch)]
    for thread in threads:
        thread.start()
    try:
        yield seen
    finally:
        time.sleep(0.2)  # let a late connection or open land before the counts are read
        stop.set()
        for thread in threads:
            thread.join(timeout=5)
        server.close()


def live_processes(group: int) -> list[str]:
    """Names of the processes of ``group`` that are not zombies (read from /proc)."""
    names = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            text = stat.read_text()
            name, rest = text[text.index("(") + 1:text.rindex(")")], text[text.rindex(")") + 2:]
            state, _, pgid = rest.split()[:3]
            if int(pgid) == group and state not in ("Z", "X"):
                names.append(name)
    return names


def wait_until_gone(group: int, timeout_s: float = 10.0) -> list[str]:
    """Wait for ``group`` to have no live process; return what is left after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while (left := live_processes(group)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left

"""A Hugging Face hub out of reach, for a fresh Python process: ``HF_ENDPOINT`` at a port that
accepts connections and never answers, or at a closed one, with an empty hub cache.

The test session itself runs with ``HF_HUB_OFFLINE=1`` (offline by choice, so nothing probes
the hub); :func:`hub_out_of_reach` gives a child process the environment of a machine whose hub
does not answer. The silent hub counts the connections it accepted: how often the child tried
the hub, which is what its retries used to cost, counted rather than timed (a bound on seconds
fails on a loaded machine).
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Hub:
    """The hub's port, and the connections it accepted (none at a closed port, which refuses
    them: ``counts`` is False there)."""

    port: int
    counts: bool
    accepted: list[socket.socket] = field(default_factory=list)

    @property
    def connections(self) -> int:
        return len(self.accepted)


@contextmanager
def silent_listener() -> Iterator[Hub]:
    """A port that accepts connections, counts them and never answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        listener.settimeout(0.05)
        hub, done = Hub(listener.getsockname()[1], counts=True), threading.Event()

        def accept() -> None:
            while True:  # until asked to stop with none waiting in the backlog
                try:
                    hub.accepted.append(listener.accept()[0])
                except TimeoutError:
                    if done.is_set():
                        return

        thread = threading.Thread(target=accept, daemon=True)
        thread.start()
        try:
            yield hub
        finally:
            done.set()
            thread.join()
            for connection in hub.accepted:
                connection.close()


@contextmanager
def closed_port() -> Iterator[Hub]:
    """A port nothing listens on: connections are refused at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    yield Hub(port, counts=False)


Endpoint = Callable[[], AbstractContextManager[Hub]]
""":func:`silent_listener` or :func:`closed_port`."""


def hub_out_of_reach(port: int, hf_home: Path, *unset: str) -> dict[str, str]:
    """This process's environment for a child whose hub is ``127.0.0.1:port`` and whose
    Hugging Face cache is ``hf_home``, without offline mode and without the variables
    ``unset``."""
    dropped = {"HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", *unset}
    env = {key: value for key, value in os.environ.items() if key not in dropped}
    env.update(HF_ENDPOINT=f"http://127.0.0.1:{port}", HF_HOME=str(hf_home))
    return env

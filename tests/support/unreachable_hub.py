"""A Hugging Face hub out of reach, for a fresh Python process: ``HF_ENDPOINT`` at a port that
accepts connections and never answers, or at a closed one, with an empty hub cache.

The test session itself runs with ``HF_HUB_OFFLINE=1`` (offline by choice, so nothing probes
the hub); :func:`hub_out_of_reach` gives a child process the environment of a machine whose hub
does not answer.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path


@contextmanager
def silent_listener() -> Iterator[int]:
    """A port that accepts connections (the kernel's backlog) and never answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        yield listener.getsockname()[1]


@contextmanager
def closed_port() -> Iterator[int]:
    """A port nothing listens on: connections are refused at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    yield port


Endpoint = Callable[[], AbstractContextManager[int]]
""":func:`silent_listener` or :func:`closed_port`."""


def hub_out_of_reach(port: int, hf_home: Path, *unset: str) -> dict[str, str]:
    """This process's environment for a child whose hub is ``127.0.0.1:port`` and whose
    Hugging Face cache is ``hf_home``, without offline mode and without the variables
    ``unset``."""
    dropped = {"HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", *unset}
    env = {key: value for key, value in os.environ.items() if key not in dropped}
    env.update(HF_ENDPOINT=f"http://127.0.0.1:{port}", HF_HOME=str(hf_home))
    return env

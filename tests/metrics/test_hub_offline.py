"""An unreachable Hugging Face hub is found out once, in seconds, and the process works offline.

Each case runs a fresh Python process (the test session itself runs with ``HF_HUB_OFFLINE=1``)
whose ``HF_ENDPOINT`` is a closed port or a listener that accepts connections and never
answers, with an empty Hugging Face cache. Before the probe, the listener that never answers
took minutes per weights (huggingface_hub's "Retrying in ..." backoff, a connection each
try), a closed port seconds of retries per file. The listener counts the connections: one,
the probe's.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support.unreachable_hub import Endpoint, closed_port, hub_out_of_reach, silent_listener

pytestmark = pytest.mark.e2e  # see the marker in pyproject.toml

pytest.importorskip("transformers")

SCRIPT = """
import os
import numpy as np
from svgeval.metrics.dino import dino
from svgeval.metrics.registry import MetricUnavailable
image = np.zeros((8, 8, 3), np.uint8)
before = dict(os.environ)
for model in ("facebook/dinov2-small", "facebook/dinov2-base"):
    try:
        dino([image], [image], model=model, device="cpu")
    except MetricUnavailable as error:
        print("UNAVAILABLE", error)
print("ENVIRONMENT AS IT WAS", dict(os.environ) == before)
"""


@pytest.mark.parametrize("endpoint", [silent_listener, closed_port], ids=["silent", "closed"])
def test_weights_from_an_unreachable_hub_fail_fast_and_say_why(
    endpoint: Endpoint, tmp_path: Path
) -> None:
    with endpoint() as hub:
        env = hub_out_of_reach(hub.port, tmp_path / "hf", "SVGEVAL_MODEL_DIR",
                               "SVGEVAL_DINO_MODEL")
        finished = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                                  text=True, timeout=120, check=False)
    output = finished.stdout + finished.stderr
    assert finished.returncode == 0, output
    assert "Retrying" not in output
    unavailable = [line for line in finished.stdout.splitlines() if line.startswith("UNAVAILABLE")]
    assert len(unavailable) == 2
    for line, name in zip(unavailable, ("dinov2-small", "dinov2-base")):
        assert f"cannot load the DINOv2 model facebook/{name}" in line
        assert (f"facebook/{name} (not in the local cache, and the hub at "
                f"http://127.0.0.1:{hub.port} did not answer within 3 s") in line
    if hub.counts:  # the probe, once for both models; before, a retry after each wait
        assert hub.connections == 1
    # offline through huggingface_hub's own switch: nothing written to the environment
    assert "ENVIRONMENT AS IT WAS True" in finished.stdout

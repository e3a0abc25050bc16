"""Render functions that misbehave on purpose, to test the isolation of the render pool."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from svgeval.render.cairo import RenderSpec, render_svg_uint8


def segfault_on_marker(svg: str | bytes, spec: RenderSpec) -> NDArray[np.uint8]:
    """Kill the worker with SIGSEGV when the SVG contains ``CRASH``, else render normally."""
    text = svg.decode() if isinstance(svg, bytes) else svg
    if "ATTEMPTS:" in text:  # one line per attempt in the file named
        with Path(text.split("ATTEMPTS:", 1)[1].split("<", 1)[0]).open("a") as attempts:
            attempts.write("attempt\n")
    if "CRASH" in text:
        os.kill(os.getpid(), signal.SIGSEGV)
    if "HANG" in text:
        time.sleep(60)
    if "STALL_ONCE:" in text:  # a worker that gets no CPU for a while, the first time only
        flag = Path(text.split("STALL_ONCE:", 1)[1].split("<", 1)[0])
        if not flag.exists():
            flag.touch()
            time.sleep(60)
    if "BURN" in text:  # CPU time, as fast as this worker gets it, until the kernel stops it
        while time.process_time() < 600:
            pass
    if "SPIN" in text:  # busy for 3 s: a render in flight shows as CPU time
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            pass
    return render_svg_uint8(svg, spec)

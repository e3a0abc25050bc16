"""Render functions that misbehave on purpose, to test the isolation of the render pool."""

from __future__ import annotations

import os
import signal
import time

import numpy as np
from numpy.typing import NDArray

from svgeval.svg.render import RenderSpec, render_svg_uint8


def segfault_on_marker(svg: str | bytes, spec: RenderSpec) -> NDArray[np.uint8]:
    """Kill the worker with SIGSEGV when the SVG contains ``CRASH``, else render normally."""
    text = svg.decode() if isinstance(svg, bytes) else svg
    if "CRASH" in text:
        os.kill(os.getpid(), signal.SIGSEGV)
    if "HANG" in text:
        time.sleep(60)
    if "SPIN" in text:  # busy for 3 s: a render in flight shows as CPU time
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            pass
    return render_svg_uint8(svg, spec)

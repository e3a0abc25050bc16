"""Videos of the frame-wise video-metric check of ``tests/metrics/test_video_metrics.py`` on
which InternSVG's released calculators were run (``tests/upstream/video_metrics.py``)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray


def greys(offset: int = 0, frames: int = 150, size: int = 16) -> NDArray[np.uint8]:
    """``frames`` RGB frames of ``size`` x ``size`` pixels, frame ``i`` a uniform grey
    ``i + offset`` (clipped to 0..255): a read-back frame tells its index."""
    levels = np.clip(np.arange(frames) + offset, 0, 255).astype(np.uint8)
    return np.repeat(levels[:, None, None, None], size * size * 3).reshape(frames, size, size, 3)


def pairs() -> tuple[list[NDArray[np.uint8]], list[NDArray[np.uint8]]]:
    """(ground truths, predictions): the grey video against itself, against it 10 levels
    brighter and against a black video of the same size."""
    grey = greys()
    return [grey, grey, grey], [grey, greys(10), np.zeros_like(grey)]

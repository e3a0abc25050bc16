"""Pictures of the MMSVGBench pixel-metric check of ``tests/tasks/test_mmsvgbench.py`` on which
OmniSVG's released ``compute_ssim_lpips_mse.py`` was run (``tests/upstream/mmsvgbench.py``)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray


def truth() -> NDArray[np.uint8]:
    """The ground truth: an 8 x 8 white RGB picture whose 4 x 4 top-left quarter is black."""
    picture = np.full((8, 8, 3), 255, np.uint8)
    picture[:4, :4] = 0
    return picture


def candidates() -> dict[str, tuple[NDArray[np.uint8], bool]]:
    """Name -> (the generated picture as its PNG holds it, 8-bit RGB or RGBA; whether the scorer
    composites it on white, its default, or drops the alpha, ``--no-white-bg``)."""
    transparent = np.zeros((8, 8, 4), np.uint8)
    white = np.full((8, 8, 3), 255, np.uint8)
    return {"white": (white, True),
            "transparent on white": (transparent, True),
            "white 16 px, resized": (np.full((16, 16, 3), 255, np.uint8), True),
            "itself": (truth(), True),
            "transparent, alpha dropped": (transparent, False)}

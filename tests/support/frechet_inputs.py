"""Inputs of the Fréchet-distance checks of ``tests/metrics/test_frechet_variants.py`` on which
the released scorers were run (``tests/upstream/frechet.py``)."""

from __future__ import annotations

import numpy as np

CD_FVD_REAL = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0], [2.0, 2.0]])
"""Four 2-d features: mean (1, 1), population covariance I (``np.cov``: 4/3 I); the fake set is
these plus (1, 1)."""
SAMPLED_SIZES = (150, 1000, 255_412, 904_011)
"""Reference-set sizes whose seeded 3 % sample is checked (the last two: MMSVG-Illustration and
MMSVG-Icon)."""


def omnisvg_check_features() -> tuple[np.ndarray, np.ndarray]:
    """Two sets of six 3-d features (seed 0), the second shifted by 1."""
    rng = np.random.default_rng(0)
    a = rng.normal(size=(6, 3))
    return a, rng.normal(size=(6, 3)) + 1.0

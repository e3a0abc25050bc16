"""The Fréchet distance between Gaussians fitted to two feature sets (FID, CLIP-FID, FVD), in the
variants the released scorers compute, and the seeded reference sampler of OmniSVG's FID.

The distance (Heusel et al., 2017; Unterthiner et al., 2019 for FVD)::

    d^2 = ||mu_1 - mu_2||^2 + Tr(S_1 + S_2 - 2 (S_1 S_2)^(1/2))

``variant=`` picks how the released code computes it; the three differ only in the last digits
on well-conditioned statistics, and by more on the singular ones small sets give:

- ``pytorch-fid`` (default; pytorch-fid ``calculate_frechet_distance``, clean-fid, VGBench's
  ``evaluate_fid_score.py``): ``S`` the sample covariance (``np.cov``, N - 1); a non-finite
  ``sqrtm`` is retried with ``eps`` = 1e-6 added to both diagonals; a complex root whose
  diagonal has imaginary parts below 1e-3 is replaced by its real part, larger ones raise
  ValueError.
- ``omnisvg`` (OmniSVG ``metrics/compute_fid.py:245-272``): ``eps`` is *always* added to both
  diagonals before ``sqrtm``, and the traces use the shifted covariances; the real part is
  kept without the imaginary-part check. Relative difference to ``pytorch-fid`` ~1e-7 on
  well-conditioned statistics.
- ``cd-fvd`` (cd-fvd 0.1.1 ``metric_utils.FeatureStats`` and ``fvd.frechet_distance``, which
  InternSVG's FVD calls): ``S`` the *population* covariance (``raw_cov / N - mu mu^T``), no
  ``eps``, the real part of ``sqrtm`` kept without a check.

Lower is better; 0 for two sets with the same statistics.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

Features = NDArray[np.float64]
T = TypeVar("T")
VARIANTS = ("pytorch-fid", "omnisvg", "cd-fvd")
"""Values of ``variant=``: whose Fréchet distance (see the module docstring)."""


def _check_variant(variant: str) -> None:
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, not {variant!r}")


def frechet_distance(mu1: NDArray[np.floating[Any]], sigma1: NDArray[np.floating[Any]],
                     mu2: NDArray[np.floating[Any]], sigma2: NDArray[np.floating[Any]],
                     eps: float = 1e-6, *, variant: str = "pytorch-fid") -> float:
    """``||mu1 - mu2||^2 + Tr(S1 + S2 - 2 sqrtm(S1 S2))`` of two Gaussians, in float64, as
    ``variant`` computes it (see the module docstring for ``eps`` and the complex root)."""
    from scipy import linalg

    _check_variant(variant)
    m1, m2 = np.atleast_1d(np.asarray(mu1, np.float64)), np.atleast_1d(np.asarray(mu2, np.float64))
    s1, s2 = np.atleast_2d(np.asarray(sigma1, np.float64)), np.atleast_2d(np.asarray(sigma2, np.float64))
    if m1.shape != m2.shape or s1.shape != s2.shape or s1.shape != (m1.size, m1.size):
        raise ValueError(f"mismatched statistics: means {m1.shape}, {m2.shape}; "
                         f"covariances {s1.shape}, {s2.shape}")
    if variant == "omnisvg":
        s1, s2 = s1 + np.eye(m1.size) * eps, s2 + np.eye(m1.size) * eps
    root = linalg.sqrtm(s1 @ s2)
    if variant == "pytorch-fid":
        if not np.isfinite(root).all():
            offset = np.eye(m1.size) * eps
            root = linalg.sqrtm((s1 + offset) @ (s2 + offset))
        if np.iscomplexobj(root):
            worst = float(np.max(np.abs(np.diagonal(root).imag)))
            if worst > 1e-3:
                raise ValueError(f"sqrtm(S1 S2) has an imaginary component of {worst:.3g} on its "
                                 "diagonal: the covariances are too ill-conditioned")
    root = np.real(root)
    diff = m1 - m2
    return float(diff @ diff + np.trace(s1) + np.trace(s2) - 2.0 * np.trace(root))


def feature_statistics(features: NDArray[np.floating[Any]], *,
                       population: bool = False) -> tuple[Features, Features]:
    """Mean (D,) and covariance (D, D) of (N, D) features, N >= 2, in float64: the sample
    covariance (``np.cov``, N - 1) or, with ``population=True``, the population covariance
    (N; cd-fvd's ``FeatureStats``)."""
    feats = np.asarray(features, np.float64)
    if feats.ndim != 2 or feats.shape[0] < 2:
        raise ValueError(f"need an (N, D) feature array with N >= 2, got shape {feats.shape}")
    return feats.mean(axis=0), np.cov(feats, rowvar=False, ddof=0 if population else 1)


def fid_from_features(features_a: NDArray[np.floating[Any]],
                      features_b: NDArray[np.floating[Any]], *, method: str = "auto",
                      variant: str = "pytorch-fid") -> float:
    """Fréchet distance between Gaussians fitted to two (N, D) feature sets (``variant``: see
    the module docstring; ``cd-fvd`` fits population covariances).

    ``method="sqrtm"``: :func:`frechet_distance` of the two sets' statistics (scipy ``sqrtm`` of
    a D x D product, as the reference implementations; slow for D = 2048 on a CPU,
    ``bench/RESULTS.md``). ``"low-rank"``: the same quantity from the centred features A
    (n_a x D) and B:
    ``S_a S_b = A^T (A B^T B) / c`` with ``c = (n_a - d)(n_b - d)`` (d = 1, or 0 for population
    covariances) has the nonzero eigenvalues of ``(A B^T)(A B^T)^T / c``, so
    ``Tr((S_a S_b)^(1/2))`` is the nuclear norm of ``A B^T`` over ``sqrt(c)``: exact, and much
    faster when a set is smaller than D (where ``sqrtm`` of the singular product is also
    least accurate). ``"auto"`` (default): ``low-rank`` when a set has fewer than D samples,
    else ``sqrtm``. The ``omnisvg`` variant shifts both covariances by ``eps I``, which the
    low-rank form cannot express: it always uses ``sqrtm``.
    """
    _check_variant(variant)
    a, b = np.asarray(features_a, np.float64), np.asarray(features_b, np.float64)
    if method not in ("auto", "sqrtm", "low-rank"):
        raise ValueError(f"method must be auto, sqrtm or low-rank, not {method!r}")
    for feats in (a, b):
        if feats.ndim != 2 or feats.shape[0] < 2:
            raise ValueError(f"need (N, D) feature arrays with N >= 2, got shape {feats.shape}")
    if a.shape[1] != b.shape[1]:
        raise ValueError(f"mismatched feature sizes {a.shape} and {b.shape}")
    population = variant == "cd-fvd"
    if (method == "sqrtm" or variant == "omnisvg"
            or (method == "auto" and min(len(a), len(b)) >= a.shape[1])):
        return frechet_distance(*feature_statistics(a, population=population),
                                *feature_statistics(b, population=population), variant=variant)
    ddof = 0 if population else 1
    mu_a, mu_b = a.mean(axis=0), b.mean(axis=0)
    centred_a, centred_b = a - mu_a, b - mu_b
    trace_a = np.sum(centred_a**2) / (len(a) - ddof)  # Tr(S_a), without forming S_a
    trace_b = np.sum(centred_b**2) / (len(b) - ddof)
    scale = np.sqrt((len(a) - ddof) * (len(b) - ddof))
    trace_root = np.linalg.svd(centred_a @ centred_b.T, compute_uv=False).sum() / scale
    diff = mu_a - mu_b
    return float(diff @ diff + trace_a + trace_b - 2.0 * trace_root)


def sample_indices(n: int, fraction: float, seed: int = 42) -> list[int]:
    """The sorted indices of a seeded ``int(n x fraction)`` sample without replacement from
    ``range(n)``: OmniSVG's FID reference set (``compute_fid.py:168-177``, its issue #39),
    ``np.random.seed(seed); np.random.choice(n, int(n * fraction), replace=False)``, sorted.

    Uses numpy's legacy ``RandomState``, which draws the same numbers as the global seed the
    released code sets (and is stable across numpy versions): with the released 3 % and seed
    42, MMSVG-Illustration's 255,412 rows give 7,662 indices starting 41, 44, 89, 117, 119.
    """
    if n < 0 or not 0.0 <= fraction <= 1.0:
        raise ValueError(f"need n >= 0 and 0 <= fraction <= 1, got n={n}, fraction={fraction}")
    chosen = np.random.RandomState(seed).choice(n, int(n * fraction), replace=False)
    return sorted(int(i) for i in chosen)


def sample_references(items: Sequence[T], fraction: float | None, seed: int = 42) -> list[T]:
    """``items`` at :func:`sample_indices` (in index order), or all of them when ``fraction`` is
    None: how a preset's ``fid_reference_fraction`` / ``fid_reference_seed`` are applied."""
    if fraction is None:
        return list(items)
    return [items[i] for i in sample_indices(len(items), fraction, seed)]

"""The released Fréchet distances and reference sampler on the inputs the tests rebuild.

OmniSVG (OmniSVG/OmniSVG at ``f2e033e``), ``metrics/compute_fid.py`` unmodified:
``calculate_activation_statistics`` and ``calculate_frechet_distance`` (its ``eps`` 1e-6 on
both diagonals) on ``support.frechet_inputs.omnisvg_check_features`` and on two 2-d unit
Gaussians one apart per axis; ``download_gt_dataset`` (``np.random.seed(42)``,
``np.random.choice`` of 3 %, sorted) on a stand-in ``datasets`` whose data set of ``n`` rows
answers each row's index (for each ``n`` of ``SAMPLED_SIZES``). cd-fvd 0.1.1 (the package of
``.venv/ref-packages``, ``checkout.reference_packages``): ``FeatureStats`` of
``CD_FVD_REAL`` and of it plus 1, and ``cdfvd.compute_fvd_from_stats`` on them (called without
an instance: it reads only the two statistics given; its constructor loads the I3D network).
Prints the values ``tests/metrics/test_frechet_variants.py`` asserts: ``omnisvg_check``,
``omnisvg_unit_gaussians``, ``omnisvg_sample`` (per size: count, first five, last) and
``cd_fvd`` (mean, covariance, FVD).

Runs in svgeval's test environment (numpy 2.4.6, scipy 1.17.1 as issue 29's run).

    PYTHONPATH=tests python -m upstream.frechet [--source GIT_REPO | --checkout DIR]
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image
from support.frechet_inputs import CD_FVD_REAL, SAMPLED_SIZES, omnisvg_check_features

from upstream import checkout

RELEASE = checkout.Release("OmniSVG/OmniSVG", "f2e033edc7a1c894826bb5e2c5bb16681017791b")


class _Row(Image.Image):
    """A stand-in picture that remembers which row it was read from."""

    def __init__(self, index: int) -> None:
        super().__init__()
        self.index = index


class _Rows:
    """A data set of ``n`` rows whose ``image`` is a :class:`_Row`."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.column_names = ["image"]

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, index: int) -> dict[str, Any]:
        return {"image": _Row(index)}


def omnisvg(root: Path) -> dict[str, Any]:
    spec = importlib.util.spec_from_file_location("compute_fid",
                                                  root / "metrics" / "compute_fid.py")
    assert spec is not None and spec.loader is not None
    compute_fid = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(compute_fid)
    a, b = omnisvg_check_features()
    statistics = [*compute_fid.calculate_activation_statistics(a),
                  *compute_fid.calculate_activation_statistics(b)]
    sizes: list[int] = []
    checkout.stand_in_modules({"datasets": {"load_dataset": lambda _: {"train": _Rows(sizes[-1])}}})
    samples = {}
    for n in SAMPLED_SIZES:
        sizes.append(n)
        with contextlib.redirect_stdout(sys.stderr):
            chosen = [row.index for row in compute_fid.download_gt_dataset("icon")]
        samples[n] = {"count": len(chosen), "first": chosen[:5], "last": chosen[-1]}
    return {"omnisvg_check": float(compute_fid.calculate_frechet_distance(*statistics)),
            "omnisvg_unit_gaussians": float(compute_fid.calculate_frechet_distance(
                np.zeros(2), np.eye(2), np.ones(2), np.eye(2))),
            "omnisvg_sample": samples}


def cd_fvd() -> dict[str, Any]:
    from cdfvd import fvd
    from cdfvd.utils.metric_utils import FeatureStats

    def statistics(features: np.ndarray) -> Any:
        stats = FeatureStats(capture_mean_cov=True)
        stats.append(features)
        return stats

    real, fake = statistics(CD_FVD_REAL), statistics(CD_FVD_REAL + 1)
    mean, covariance = real.get_mean_cov()
    return {"cd_fvd": {"mean": mean.tolist(), "covariance": covariance.tolist(),
                       "fvd": float(fvd.cdfvd.compute_fvd_from_stats(None, fake, real))}}


def main() -> None:
    root = checkout.from_command_line(RELEASE, __doc__)
    checkout.reference_packages()
    print(json.dumps({**omnisvg(root), **cd_fvd()}, indent=1))


if __name__ == "__main__":
    main()

"""L2 and SSIM per sample from StarVector's released ``SVGMetrics`` (and VectorGym's copy of it,
``vectorgym/metrics/calculator.py``), shared by ``starvector.py`` and ``vectorgym.py``."""

from __future__ import annotations

import contextlib
import sys
from typing import Any


def l2_ssim(svg_metrics: type, drawn: dict[str, tuple[Any, Any]]) -> dict[str, tuple[float, float]]:
    """Sample id -> (L2, SSIM) of ``svg_metrics`` (the release's class) built with only ``L2`` and
    ``SSIM`` active, on ``drawn`` (sample id -> (answer image, reference image), as the release's
    validator drew them); the release's progress lines go to stderr."""
    batch = {"json": [{"sample_id": sample_id} for sample_id in drawn],
             "gen_im": [answer for answer, _ in drawn.values()],
             "gt_im": [reference for _, reference in drawn.values()]}
    with contextlib.redirect_stdout(sys.stderr):
        _, per_sample = svg_metrics({"L2": True, "SSIM": True}).calculate_metrics(batch)
    return {sample_id: (values["L2"], float(values["SSIM"]))
            for sample_id, values in per_sample.items()}

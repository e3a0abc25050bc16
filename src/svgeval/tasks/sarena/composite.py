"""SArena's composite score of a track (Icon, Illustration) from its text-to-SVG and
image-to-SVG numbers.

InternSVG's released scripts print per-metric means and no composite; the composite is
VLMEvalKit's ``SArena.report_primary_metric`` (``vlmeval/dataset/sarena.py``)::

    score = 0.3 CLIP-I2I(T2SVG) + 0.3 x 100 DINO(I2SVG) + 0.2 x 100 SSIM(I2SVG)
            + 0.2 x 100 (1 - LPIPS(I2SVG))

with CLIP-I2I already on a 0-100 scale. That is the ``internsvg`` reading here (each metric
under its own name, as the formula's variable names say). The released VLMEvalKit code reads
the keys crossed (its issue #1695): the variable it calls SSIM holds ``I2SVG|LPIPS`` and the
one it calls LPIPS holds ``I2SVG|SSIM``, so it computes ``0.2 x 100 LPIPS + 0.2 x 100 (1 -
SSIM)``, rewarding worse pictures; ``reading="vlmevalkit"`` reproduces that number.
"""

from __future__ import annotations

from collections.abc import Mapping

from svgeval.tasks.sarena.common import Reading


def composite(clip_i2i: float, dino: float, ssim: float, lpips: float,
              reading: Reading = "internsvg") -> float:
    """The composite score (see the module docstring): ``clip_i2i`` on 0-100, the rest as the
    metrics report them (DINO, SSIM in [0, 1], LPIPS >= 0). Higher is better (internsvg)."""
    if reading == "vlmevalkit":
        ssim, lpips = lpips, ssim
    return 0.3 * clip_i2i + 0.3 * dino * 100 + 0.2 * ssim * 100 + 0.2 * (1 - lpips) * 100


def composite_from_results(text2svg: Mapping[str, float | None],
                           img2svg: Mapping[str, float | None], track: str,
                           reading: Reading = "internsvg") -> float | None:
    """The composite of ``track`` from the ``metrics`` of two ``results.json`` files (a
    ``sarena-<track>-text2svg`` and a ``sarena-<track>-img2svg`` run); None when one of the
    four numbers is missing."""
    values = (text2svg.get(f"{track}/clip_i2i"), img2svg.get(f"{track}/dino"),
              img2svg.get(f"{track}/ssim"), img2svg.get(f"{track}/lpips"))
    if any(value is None for value in values):
        return None
    clip_i2i, dino, ssim, lpips = (float(value) for value in values if value is not None)
    return composite(clip_i2i, dino, ssim, lpips, reading)

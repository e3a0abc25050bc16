"""The released SVGenius protocol: how answers are read and drawn, and how failures count.

The answer rule ``svgenius`` is ``extract_svg_from_response`` of the released scorers
(github.com/ZJU-REAL/SVGenius, ``src/eval_util.py``, used by every editing and generation
script): the last match of ``Answer:\\s*(<svg[\\s\\S]*?</svg>)``, else the last match of
``<svg[\\s\\S]*?</svg>``, else nothing. Matching is case-sensitive, a literal ``</svg>`` is
required, a self-closing ``<svg/>`` is never an answer, and the code runs from ``<svg`` to the
first ``</svg>`` after it.

Rendering follows the released code (``rasterize_svg`` in ``src/metrics/data_util.py``):
CairoSVG at 224 x 224 on a white background; an output it cannot render is drawn as a white
image (:data:`DRAWING`).

Aggregation (:func:`~svgeval.tasks.aggregate.mean_per_group`) gives one number per
``<tier>/<metric>``: the mean of the values that could be computed. Tasks express the two
failure protocols through their per-sample values (:data:`READINGS`): a metric such as ``acc``
is None for a failed sample (left out, the paper's protocol) while its ``acc_all`` twin counts
it (as a miss, or as its white stand-in, ours).
"""

from __future__ import annotations

import re

from svgeval.metrics.presets import variant
from svgeval.render.cairo import RenderSpec
from svgeval.svg.extract import Extraction, extraction_rule
from svgeval.tasks.common import Drawing, TwoReadings

RENDER_SPEC = RenderSpec.square(224, background="white")
DRAWING = Drawing(RENDER_SPEC, failed="white")
READINGS = TwoReadings(suffix="_all", paper="left_out", other="stand_in")
"""``<metric>``: a failed answer left out (released); ``<metric>_all``: every sample."""
PRESET = variant(
    "svgenius",
    description="SVGenius released code (src/metrics): CLIP ViT-L/14 unclamped x100, "
    "DINOv2-base, LPIPS-VGG on ImageNet-normalised 224 px inputs, uniform 11 px SSIM, "
    "renders 224 px (CairoSVG ignores scale=2 when both output sizes are given), "
    "PSS as in src/metrics/pss, FID/CLIP-FID as StarVector's compute_fid.py (pytorch-fid "
    "Inception, CLIP ViT-B/32)",
    metrics=("accuracy", "aesthetic", "blank_render", "ccr", "clip_fid", "clip_score", "dino",
             "exact_match", "fid", "hps", "iou", "judge_score", "levenshtein", "lpips", "mse",
             "mse_improved", "pss", "rclip", "render_match", "rld", "rmse", "sample_count", "ssim",
             "svg_present", "svg_valid", "svgauge", "svgauge_si", "svgauge_st", "win_rate"),
)
"""The metric settings of the released code (svgeval's defaults)."""
_SVGENIUS_ANSWER = re.compile(r"Answer:\s*(<svg[\s\S]*?</svg>)")
_SVGENIUS_ELEMENT = re.compile(r"<svg[\s\S]*?</svg>")


@extraction_rule("svgenius")
def extract_svgenius(response: str) -> Extraction:
    """The released ``extract_svg_from_response`` (see the module docstring)."""
    answers: list[str] = _SVGENIUS_ANSWER.findall(response)
    if answers:
        return Extraction(answers[-1], "svgenius:answer")
    elements: list[str] = _SVGENIUS_ELEMENT.findall(response)
    if elements:
        return Extraction(elements[-1], "svgenius:last")
    return Extraction(None, "svgenius", "no <svg ...>...</svg> in the response")

"""The released SVGenius protocol: how answers are drawn, and how failures are read.

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

from svgeval.svg.render import RenderSpec
from svgeval.tasks.common import Drawing, TwoReadings

RENDER_SPEC = RenderSpec.square(224, background="white")
DRAWING = Drawing(RENDER_SPEC, failed="white")
READINGS = TwoReadings(suffix="_all", paper="left_out", other="stand_in")
"""``<metric>``: a failed answer left out (released); ``<metric>_all``: every sample."""

"""L2 and SSIM of the released StarVector scorer on the answers the tests rebuild.

Runs, from joanrod/star-vector at ``0e083c19`` unmodified, the validator's answer handling and
metrics: ``SVGValidator.post_process_svg`` (the answer as given when svgpathtools reads it, else
``clean_svg``'s repair, else the ``<svg></svg>`` placeholder), ``rasterize_svg(resolution=512,
dpi=100, scale=1)`` of the answer and the reference as ``_save_svg_files`` draws them, and
``SVGMetrics`` with ``configs/metrics/im2svg.yaml``'s ``L2`` and ``SSIM`` (its other metrics need
weights; ``tests/upstream/README.md`` names their check). Inputs: 32 SVGenius icons of
``support.released_answers.answered(32, "sv")``, ``sv<i>`` answered in kind ``KINDS[i % 16]``.
Prints ``RELEASED_L2_SSIM`` of ``tests/tasks/test_starvector.py``: (L2, SSIM) per sample.

Runs in svgeval's test environment with the upstream packages of ``.venv/ref-packages``
(torchvision, lpips; ``checkout.reference_packages``) and ``../shared/data/svgenius``. Issue 27
ran it in a virtual environment with transformers 4.49.0, the release's pin; these two metrics
do not use transformers. Stand-ins (``checkout.stand_in_modules``) replace imports that L2 and
SSIM never reach: ``checkout.CLIP_METRIC_STAND_INS`` and the ``__init__`` of the package
``starvector.validation`` (it imports the vLLM and Hugging Face validators; the modules used are
read from the release as they are).

    PYTHONPATH=tests python -m upstream.starvector [--source GIT_REPO | --checkout DIR]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from support.released_answers import answered

from upstream import checkout
from upstream.l2_ssim import l2_ssim

RELEASE = checkout.Release("joanrod/star-vector", "0e083c1911760aa31bc576ca7f337a7f8ee605ec")


def validation_package(root: Path) -> dict[str, dict[str, Any]]:
    """The stand-in for the ``__init__`` of ``starvector.validation`` (it imports the vLLM and
    Hugging Face validators): the package's modules read from the release as they are."""
    return {"starvector.validation": {"__path__": [str(root / "starvector" / "validation")]}}


def released_drawings(root: Path, answers: dict[str, tuple[str, str, str]],
                      ) -> dict[str, tuple[Any, Any]]:
    """Sample id -> (answer, reference) as the release draws them, for ``answers`` (id ->
    (kind, reference, answer)); the caller has put the stand-ins in place."""
    sys.path.insert(0, str(root))
    from starvector.data.util import rasterize_svg
    from starvector.validation.svg_validator_base import SVGValidator

    drawn = {}
    for sample_id, (_, reference, answer) in answers.items():
        processed = SVGValidator.post_process_svg(None, answer)
        drawn[sample_id] = (rasterize_svg(processed["svg"], resolution=512, dpi=100, scale=1),
                            rasterize_svg(reference, resolution=512, dpi=100, scale=1))
    return drawn


def released_l2_ssim(root: Path, answers: dict[str, tuple[str, str, str]]) -> dict[str, Any]:
    """Sample id -> (L2, SSIM) of the release on ``answers`` (id -> (kind, reference, answer))."""
    checkout.stand_in_modules({**checkout.CLIP_METRIC_STAND_INS, **validation_package(root)})
    drawn = released_drawings(root, answers)
    from starvector.metrics.metrics import SVGMetrics

    return l2_ssim(SVGMetrics, drawn)


def main() -> None:
    root = checkout.from_command_line(RELEASE, __doc__)
    checkout.reference_packages()
    print(json.dumps({"RELEASED_L2_SSIM": released_l2_ssim(root, answered(32, "sv"))},
                     indent=1))


if __name__ == "__main__":
    main()

"""L2 and SSIM of the released VectorGym scorer on the answers the tests rebuild.

Runs, from ServiceNow/VectorGym at ``31cb00c5`` unmodified, the OpenRouter validator's path: the
answer through ``OpenRouterValidator._extract_code_blocks`` (first ``<svg>...</svg>``, else from
``<svg`` on, else the text) and ``.strip()`` as ``generate_svg`` does, ``postprocess_svg`` (as
given when svgpathtools reads it, else ``clean_svg`` at the drawing's own size, else the
placeholder), ``BaseValidator.rasterize`` at ``default.yaml``'s ``render_size`` 512
(``robust_svg_to_pil``) of the answer and the reference, and ``SVGMetrics`` (``calculator.py``)
with ``L2`` and ``SSIM`` of ``default.yaml``'s metrics (the others need weights;
``tests/upstream/README.md`` names their check). Inputs: 32 SVGenius icons of
``support.released_answers.answered(32, "vg")``, ``vg<i>`` answered in kind ``KINDS[i % 16]``.
Prints ``RELEASED_L2_SSIM`` of ``tests/tasks/test_vectorgym_tasks.py``: (L2, SSIM) per sample.

Runs in svgeval's test environment with the upstream packages of ``.venv/ref-packages``
(``checkout.reference_packages``) and ``../shared/data/svgenius``. Issue 27 ran it in a virtual
environment with transformers 4.57.1; these two metrics do not use transformers. Stand-ins
(``checkout.stand_in_modules``) replace imports L2 and SSIM never reach:
``checkout.CLIP_METRIC_STAND_INS`` and the ``__init__`` of the packages ``vectorgym`` and
``vectorgym.validators`` (they import the vLLM validator; the modules used are read from the
release as they are).

    PYTHONPATH=tests python -m upstream.vectorgym [--source GIT_REPO | --checkout DIR]
"""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path
from typing import Any

from support.released_answers import answered

from upstream import checkout
from upstream.l2_ssim import l2_ssim

RELEASE = checkout.Release("ServiceNow/VectorGym", "31cb00c5ea188414ac43876fcf8eb58efd83c634")
RENDER_SIZE = 512  # vectorgym/configs/default.yaml, dataset.render_size


def packages(root: Path) -> dict[str, dict[str, Any]]:
    """The stand-ins for the ``__init__`` of ``vectorgym`` and ``vectorgym.validators`` (they
    import the vLLM validator): the packages' modules read from the release as they are."""
    package = root / "vectorgym"
    return {"vectorgym": {"__path__": [str(package)]},
            "vectorgym.validators": {"__path__": [str(package / "validators")]}}


def released_drawings(root: Path, answers: dict[str, tuple[str, str, str]],
                      ) -> dict[str, tuple[Any, Any]]:
    """Sample id -> (answer, reference) as the OpenRouter validator draws them, for ``answers``
    (id -> (kind, reference, answer)); the caller has put the stand-ins in place."""
    sys.path.insert(0, str(root))
    from vectorgym.validators.base import BaseValidator
    from vectorgym.validators.openrouter import OpenRouterValidator

    drawn = {}
    with contextlib.redirect_stdout(sys.stderr):  # rasterize's warnings
        for sample_id, (_, reference, answer) in answers.items():
            extracted = OpenRouterValidator._extract_code_blocks(None, answer).strip()
            processed = OpenRouterValidator.postprocess_svg(None, extracted)
            drawn[sample_id] = BaseValidator.rasterize(None, processed["svg"], reference,
                                                       RASTERIZE_SIZE=RENDER_SIZE)
    return drawn


def released_l2_ssim(root: Path, answers: dict[str, tuple[str, str, str]]) -> dict[str, Any]:
    """Sample id -> (L2, SSIM) of the release on ``answers`` (id -> (kind, reference, answer))."""
    checkout.stand_in_modules({**checkout.CLIP_METRIC_STAND_INS, **packages(root)})
    drawn = released_drawings(root, answers)
    from vectorgym.metrics.calculator import SVGMetrics

    return l2_ssim(SVGMetrics, drawn)


def main() -> None:
    root = checkout.from_command_line(RELEASE, __doc__)
    checkout.reference_packages()
    print(json.dumps({"RELEASED_L2_SSIM": released_l2_ssim(root, answered(32, "vg"))},
                     indent=1))


if __name__ == "__main__":
    main()

"""The released RLRF server's image and length terms on the renders the test rebuilds.

HTplex/rlrf-rewarder at ``f7588fe`` (its only published state), unmodified:
``reward_score/rewards_img.py``'s ``reward_img_l2`` twice, ``blur=0, normalize="avg_std"`` (the
standardised L2) and ``canny=True, dilate=True, dilate_kernel_size=3, dilate_iterations=1,
blur=13`` (the Canny term), and ``reward_score/rewards_svg.py``'s
``reward_svg_length_quadratic``, on the SVGs of ``tests/rewards/cases.py`` (the reference, a
perturbed copy and an unrelated SVG) rendered at 512 px by svgeval's skia backend and given as
BGR arrays, as the server's ``pil_png_to_np`` passes them.

Prints ``RELEASED`` of ``tests/rewards/test_recipes.py`` (name -> [L2 term, Canny term, length
term]).

Runs in svgeval's test environment (OpenCV, NumPy, skia-python) with the upstream packages of
``.venv/ref-packages`` (torchvision: ``rewards_img.py`` imports ``ToTensor`` at its top, for a
function not run here; lpips, for ``RewardLpips``). Stand-ins for what the modules import at
their tops but no printed value reaches: the authors' ``starvector2.utils.svg_util``
(``show_img_np``, ``get_svg_original_size``), ``DISTS_pytorch`` (``DISTS``) and ``dreamsim``.

    PYTHONPATH=tests python -m upstream.rlrf_rewarder [--source GIT_REPO | --checkout DIR]
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

from upstream import checkout

RELEASE = checkout.Release("HTplex/rlrf-rewarder", "f7588feb2ee58a96cae1172f667f39c0179326f9")


def load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def released_terms(root: Path) -> dict[str, Any]:
    from svgeval.render.backends import render_svg_uint8_skia
    from svgeval.render.cairo import RenderSpec

    # the test's cases module is not a package: read by its path, as pytest imports it
    cases = load("cases", Path(__file__).parents[1] / "rewards" / "cases.py")
    images = load("rewards_img", root / "reward_score" / "rewards_img.py")
    svgs = load("rewards_svg", root / "reward_score" / "rewards_svg.py")
    spec = RenderSpec.square(512)
    reference = render_svg_uint8_skia(cases.REFERENCE, spec)[..., ::-1].copy()
    values = {}
    for name, svg in (("perturbed", cases.PERTURBED), ("unrelated", cases.UNRELATED),
                      ("reference", cases.REFERENCE)):
        prediction = render_svg_uint8_skia(svg, spec)[..., ::-1].copy()
        values[name] = [
            float(images.reward_img_l2(reference, prediction, blur=0, normalize="avg_std")),
            float(images.reward_img_l2(reference, prediction, canny=True, dilate=True,
                                       dilate_kernel_size=3, dilate_iterations=1, blur=13)),
            float(svgs.reward_svg_length_quadratic(cases.REFERENCE, svg))]
    return {"RELEASED": values}


def main() -> None:
    root = checkout.from_command_line(RELEASE, __doc__)
    checkout.reference_packages()
    checkout.stand_in_modules({"starvector2": {}, "starvector2.utils": {},
                               "starvector2.utils.svg_util": {"show_img_np": None,
                                                              "get_svg_original_size": None},
                               "DISTS_pytorch": {"DISTS": None}, "dreamsim": {"dreamsim": None}})
    with checkout.running_in(root):
        values = released_terms(root)
    print(json.dumps(values, indent=1))


if __name__ == "__main__":
    main()

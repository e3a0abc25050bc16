"""The released MMSVGBench pixel metrics (MSE, SSIM) on the pictures the test rebuilds.

OmniSVG (OmniSVG/OmniSVG at ``f2e033e``), ``metrics/compute_ssim_lpips_mse.py`` unmodified:
``evaluate_images(gt_path, gen_path, use_white_background, compute_lpips=False)`` with the
ground truth and each candidate of ``support.mmsvgbench_pixels`` written as PNG (the release
reads them with ``cv2.imread``, resizes the candidate to the truth's size, composites it on white
or drops its alpha, then computes MSE and scikit-image's SSIM). LPIPS is not computed (the
check is MSE and SSIM; ``tests/tasks/test_mmsvgbench.py`` runs LPIPS on other weights).

Prints ``RELEASED_PIXELS`` of ``tests/tasks/test_mmsvgbench.py`` (candidate -> [MSE, SSIM]).

Runs in svgeval's test environment (numpy 2.4.6, scikit-image 0.26.0; OpenCV 5.0.0 in issue 29's
run, 5.1.0 since: the same numbers).

    PYTHONPATH=tests python -m upstream.mmsvgbench [--source GIT_REPO | --checkout DIR]
"""

from __future__ import annotations

import importlib.util
import json
import tempfile
from pathlib import Path
from typing import Any

from PIL import Image
from support.mmsvgbench_pixels import candidates, truth

from upstream import checkout

RELEASE = checkout.Release("OmniSVG/OmniSVG", "f2e033edc7a1c894826bb5e2c5bb16681017791b")


def released_pixels(root: Path, work: Path) -> dict[str, Any]:
    spec = importlib.util.spec_from_file_location(
        "compute_ssim_lpips_mse", root / "metrics" / "compute_ssim_lpips_mse.py")
    assert spec is not None and spec.loader is not None
    released = importlib.util.module_from_spec(spec)
    with checkout.running_in(root):
        spec.loader.exec_module(released)
    gt = work / "gt.png"
    Image.fromarray(truth()).save(gt)
    values = {}
    for index, (name, (picture, white)) in enumerate(candidates().items()):
        path = work / f"gen{index}.png"
        Image.fromarray(picture).save(path)
        with checkout.running_in(root):
            mse, ssim, _ = released.evaluate_images(str(gt), str(path), use_white_background=white,
                                                    compute_lpips=False)
        if mse is None:
            raise SystemExit(f"the release could not score {name!r} (its message is above)")
        values[name] = [float(mse), float(ssim)]
    return {"RELEASED_PIXELS": values}


def main() -> None:
    root = checkout.from_command_line(RELEASE, __doc__)
    with tempfile.TemporaryDirectory() as work:
        print(json.dumps(released_pixels(root, Path(work)), indent=1))


if __name__ == "__main__":
    main()

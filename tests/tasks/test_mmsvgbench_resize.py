"""MMSVGBench's resize of an answer's render to the ground truth's size (``cv2.resize`` in
``compute_ssim_lpips_mse.py``) at the sizes a run meets: a 512 px render against 128 px
pictures took 36 s a sample when the three-operand sum was not split (a run of 4 samples had
no record after 13 minutes); the timeout below fails on that."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from svgeval.tasks.mmsvgbench.tasks import resize_to


@pytest.mark.timeout(30)
@pytest.mark.parametrize(("side", "to"), [(512, 128), (256, 448), (448, 256)])
def test_resize_equals_opencv_bilinear_at_run_sizes(side: int, to: int) -> None:
    pixels = np.random.default_rng(side + to).integers(0, 256, (side, side, 3), dtype=np.uint8)
    ours = resize_to(pixels / 255.0, (to, to, 3))
    # OpenCV's bilinear weights in floating point (its 8-bit path rounds them to fixed point)
    theirs = cv2.resize(pixels.astype(np.float64), (to, to), interpolation=cv2.INTER_LINEAR)
    differ = np.rint(ours * 255.0) != np.clip(np.rint(theirs), 0, 255)
    # equal but where a value lies on a half (448 / 256 = 7 / 4 puts some there): its sum in
    # another order rounds the other way
    assert np.allclose(np.abs(theirs[differ] % 1.0 - 0.5), 0.0, atol=1e-9)

"""The released frame sampling and frame-wise PSNR and SSIM of SArena's animation task.

InternSVG (hmwang2002/InternSVG at ``77a891e``), unmodified: ``metrics/video/CLIP_video.py``'s
``sample_frames_from_video(path, 8)`` and ``PSNRVideoCalculator(num_frames=8)`` and
``SSIMVideoCalculator(num_frames=8)`` (``metrics/video/PSNR_video.py``, ``SSIM_video.py``: the
calculators ``metrics/video/video_metrics.py`` builds) through ``BaseMetric.calculate_score``,
on the videos of ``support.grey_videos`` written as lossless FFV1 files with OpenCV. Frame ``i``
of a grey video is the grey ``i``, so the frames the release reads back give the indices it
sampled.

Prints ``RELEASED_SAMPLE`` (the indices sampled from the 150-frame video), ``RELEASED_PSNR`` and
``RELEASED_SSIM`` (per pair of ``support.grey_videos.pairs``) of
``tests/metrics/test_video_metrics.py``.

Runs in svgeval's test environment with the upstream packages of ``.venv/ref-packages``; the
calculators' modules import ``CLIP_video``, which imports the ViCLIP model: the stand-ins of
``upstream.viclip`` (timm's ``DropPath`` and ``register_model``, ``pkg_resources``, the image
metrics' imports) answer those imports, none of which the printed values reach.

    PYTHONPATH=tests python -m upstream.video_metrics [--source GIT_REPO | --checkout DIR]
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from support.grey_videos import greys, pairs

from upstream import checkout, viclip


def released_numbers(work: Path) -> dict[str, Any]:
    from metrics.video.CLIP_video import sample_frames_from_video
    from metrics.video.PSNR_video import PSNRVideoCalculator
    from metrics.video.SSIM_video import SSIMVideoCalculator

    truths, predictions = pairs()
    batch = {"gt_video": [viclip.write_video(v, work / f"truth{i}.avi")
                          for i, v in enumerate(truths)],
             "pred_video": [viclip.write_video(v, work / f"prediction{i}.avi")
                            for i, v in enumerate(predictions)]}
    sampled = sample_frames_from_video(viclip.write_video(greys(), work / "grey.avi"), 8)
    values = {}
    for name, calculator in (("RELEASED_PSNR", PSNRVideoCalculator(num_frames=8)),
                             ("RELEASED_SSIM", SSIMVideoCalculator(num_frames=8))):
        _, per_pair = calculator.calculate_score(batch, update=False)
        values[name] = [float(value) for value in per_pair]
    return {"RELEASED_SAMPLE": [int(frame[0, 0, 0]) for frame in sampled], **values}


def main() -> None:
    root = checkout.from_command_line(viclip.RELEASE, __doc__)
    viclip.importable(root)
    with tempfile.TemporaryDirectory() as work, checkout.running_in(root):
        values = released_numbers(Path(work))
    print(json.dumps(values, indent=1))


if __name__ == "__main__":
    main()

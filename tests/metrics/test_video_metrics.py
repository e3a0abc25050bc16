"""SArena animation's video metrics: frame sampling and frame-wise PSNR/SSIM against the numbers
InternSVG's released calculators gave, FVD's clip pipeline and I3D with random weights.

Released numbers: ``tests/upstream/video_metrics.py`` (``PYTHONPATH=tests python -m
upstream.video_metrics``, in the test environment with the upstream packages of
``.venv/ref-packages``) runs InternSVG's ``sample_frames_from_video``, ``PSNRVideoCalculator``
and ``SSIMVideoCalculator`` (77a891e, unmodified, 8 frames as its ``video_metrics.py`` builds
them) on the videos of ``support.grey_videos`` (16 x 16, 150 frames, frame i a uniform grey i)
written as lossless FFV1 files with OpenCV, and prints the constants below; the same frames are
given here as arrays. cd-fvd's own I3D and clip pipeline are compared in
``test_upstream_references.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support.grey_videos import greys, pairs

from svgeval.metrics.registry import METRICS
from svgeval.metrics.video import (
    frame_scores,
    fvd,
    fvd_clip,
    i3d_features,
)
from svgeval.render.video import sample_indices

pytestmark = pytest.mark.e2e  # see the marker in pyproject.toml

RELEASED_SAMPLE = [0, 21, 42, 63, 85, 106, 127, 149]
RELEASED_PSNR = [100.0, 28.130803608679106, 22.173143370262476]
RELEASED_SSIM = [1.0, 0.8677237789577626, 0.12775154368622202]


def test_frames_are_sampled_as_released() -> None:
    assert sample_indices(150).tolist() == RELEASED_SAMPLE
    assert sample_indices(0).tolist() == []


def test_frame_psnr_and_ssim_give_the_released_numbers() -> None:
    truths, predictions = pairs()
    assert frame_scores(truths, predictions, "psnr") == pytest.approx(RELEASED_PSNR, abs=1e-9)
    assert frame_scores(truths, predictions, "ssim") == pytest.approx(RELEASED_SSIM, abs=1e-9)
    empty = np.zeros((0, 16, 16, 3), np.uint8)
    assert np.isnan(frame_scores([empty], [greys()], "psnr")[0])
    with pytest.raises(ValueError, match="metric must be"):
        frame_scores([greys()], [greys()], "clip")


def test_frame_dino_uses_the_batched_image_metric(tiny_dino_dir: Path) -> None:
    rng = np.random.default_rng(0)
    a = rng.integers(0, 256, (10, 28, 28, 3), dtype=np.uint8)
    b = rng.integers(0, 256, (12, 28, 28, 3), dtype=np.uint8)
    got = frame_scores([a, a], [a, b], "dino", frames=4, model_path=str(tiny_dino_dir))
    from svgeval.metrics.dino import dino

    frames_a, frames_b = [a[i] for i in (0, 3, 6, 9)], [b[i] for i in (0, 3, 7, 11)]
    expected = float(np.mean(dino(frames_a, frames_b, model_path=str(tiny_dino_dir))))
    assert got == pytest.approx([1.0, expected], abs=1e-6)


def test_fvd_clip_scales_the_shorter_side_and_crops_the_centre() -> None:
    pytest.importorskip("torch")
    video = np.zeros((20, 60, 90, 3), np.uint8)
    video[:, :, 45:] = 200                       # right half bright
    clip = fvd_clip(video, start=2, length=16, resolution=32)
    assert clip.shape == (16, 32, 32, 3) and clip.dtype == np.uint8
    assert clip[0, :, 0].max() == 0 and clip[0, :, -1].min() == 199  # 200 truncated after scaling
    with pytest.raises(ValueError, match="no 16-frame window"):
        fvd_clip(video[:10])


def test_i3d_gives_400_logits_and_fvd_is_zero_for_the_same_clips(i3d_weights: Path) -> None:
    rng = np.random.default_rng(1)
    # two videos a set, the fewest FVD takes: each clip is a full-size I3D pass at 224 px
    videos = [rng.integers(0, 256, (16, 40, 40, 3), dtype=np.uint8) for _ in range(2)]
    feats = i3d_features([fvd_clip(v, resolution=32) for v in videos], model_path=str(i3d_weights))
    assert feats.shape == (2, 400) and np.ptp(feats, axis=0).max() > 0
    same = fvd(videos, videos[::-1], resolution=32, model_path=str(i3d_weights))
    assert abs(same) < 1e-9 * np.trace(np.cov(feats, rowvar=False))
    other = fvd(videos, [v[:, ::-1] // 2 for v in videos], resolution=32, model_path=str(i3d_weights))
    assert other > 1e-3 * np.trace(np.cov(feats, rowvar=False))


def test_fvd_reads_each_video_once_and_holds_a_batch_of_clips(
        i3d_weights: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Videos handed over as a lazy sequence are read one at a time, each once, with the
    random windows drawn in the same order (the references' first): the same FVD as from
    lists, with no more clips alive than the batch I3D reads and the one being cut (all of a
    set's clips were held before)."""
    import weakref

    from svgeval.metrics import video as video_metrics
    from svgeval.tasks.lazy import LazySequence

    rng = np.random.default_rng(2)
    videos = [rng.integers(0, 256, (20 + k, 36, 44, 3), dtype=np.uint8) for k in range(3)]
    options = {"window": "random", "seed": 4, "resolution": 32, "batch_size": 1,
               "model_path": str(i3d_weights)}
    from_lists = fvd(videos[:2], [videos[2], videos[0]], **options)
    reads: list[int] = []
    alive, most = [0], [0]

    def counted(array: np.ndarray) -> np.ndarray:
        alive[0] += 1
        most[0] = max(most[0], alive[0])
        weakref.finalize(array, lambda: alive.__setitem__(0, alive[0] - 1))
        return array

    cut = video_metrics.fvd_clip
    monkeypatch.setattr(video_metrics, "fvd_clip", lambda *a, **k: counted(cut(*a, **k)))

    def read(index: int) -> np.ndarray:
        reads.append(index)
        return videos[index]

    lazy = fvd(LazySequence([0, 1], read), LazySequence([2, 0], read), **options)
    assert lazy == from_lists
    assert reads == [0, 1, 2, 0] and most[0] <= 2
    clips = (fvd_clip(v, resolution=32) for v in videos[:3])  # read a batch at a time
    assert np.array_equal(i3d_features(clips, batch_size=2, model_path=str(i3d_weights)),
                          i3d_features([fvd_clip(v, resolution=32) for v in videos[:3]],
                                       batch_size=2, model_path=str(i3d_weights)))


def test_video_metrics_are_registered() -> None:
    assert METRICS.get("fvd").higher_is_better is False
    assert METRICS.get("video_lpips").higher_is_better is False
    assert all(METRICS.get(n).higher_is_better for n in ("video_dino", "video_ssim", "video_psnr"))

"""Frame sampling and MP4 as the released SArena scorer sees them."""

from __future__ import annotations

import builtins
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from svgeval.render.video import (
    VideoCodecUnavailable,
    VideoError,
    check_codec,
    decode_sampled,
    decode_video,
    encode_mp4,
    moviepy_frame_indices,
    sample_indices,
    through_codec,
)


def grey_ramp(count: int = 150, size: int = 16) -> np.ndarray:
    """Frame i is uniform grey i."""
    return np.repeat(np.arange(count, dtype=np.uint8), size * size * 3).reshape(
        count, size, size, 3)


def test_sample_indices_are_the_released_linspace() -> None:
    # the spec's hand check: released sample_frames_from_video on a 150-frame video
    assert sample_indices(150).tolist() == [0, 21, 42, 63, 85, 106, 127, 149]
    # a 149-frame video, as moviepy 2 writes InternSVG's 150 frames
    assert sample_indices(149).tolist() == [0, 21, 42, 63, 84, 105, 126, 148]
    assert sample_indices(16, 16).tolist() == list(range(16))
    assert sample_indices(3).tolist() == [0, 0, 0, 0, 1, 1, 1, 2]  # 2k/7 truncated, repeats kept
    assert sample_indices(3, unique=True).tolist() == [0, 1, 2]
    assert sample_indices(0).tolist() == []


def test_moviepy_writes_149_of_150_frames_and_repeats_some_under_numpy_2() -> None:
    # InternSVG's svg_to_mp4 (moviepy 2.2.1's ImageSequenceClip(150 PNGs, fps=30)
    # .write_videofile) under NumPy 2.4.6 and 1.26.4, each written frame decoded to the PNG it
    # shows: tests/upstream/moviepy_frames.py prints the count and the shifted positions
    shifted = [72, 73, 74, 87, 88, 89, 102, 103, 104, 117, 118, 119, *range(128, 135),
               *range(143, 149)]
    indices = moviepy_frame_indices(150, 30)
    assert len(indices) == 149
    assert [k for k, image in enumerate(indices) if image != k] == shifted
    assert all(indices[k] == k - 1 for k in shifted)
    assert moviepy_frame_indices(150, 30, numpy2=False) == list(range(149))


@pytest.fixture(scope="module")
def ffmpeg() -> str:
    try:
        return check_codec()
    except VideoCodecUnavailable as error:
        pytest.skip(str(error))


def test_mp4_is_h264_yuv420p_at_30_fps_and_reads_back_every_frame(
    ffmpeg: str, tmp_path: Path
) -> None:
    frames = grey_ramp()
    path = tmp_path / "ramp.mp4"
    encode_mp4(frames, path)
    probe = subprocess.run([ffmpeg, "-hide_banner", "-i", str(path)], capture_output=True,
                           text=True, check=False).stderr
    stream = next(line for line in probe.splitlines() if "Video:" in line)
    assert "h264" in stream and "yuv420p" in stream and "16x16" in stream and "30 fps" in stream
    decoded = decode_video(path)
    assert decoded.shape == frames.shape and decoded.dtype == np.uint8
    assert np.abs(decoded.astype(int) - frames).max() <= 2  # lossy, but close on flat frames
    assert np.array_equal(through_codec(frames), decoded)
    # the sampled frames alone, as decoding every frame and picking them gives them
    for count, unique, greys in ((8, False, [0, 21, 42, 63, 85, 106, 127, 149]),
                                 (200, True, list(range(150)))):
        sampled = decode_sampled(path, count, unique=unique)
        assert np.array_equal(sampled, decoded[sample_indices(150, count, unique=unique)])
        assert np.allclose([frame.mean() for frame in sampled], greys, atol=2)


def test_decoded_frames_are_opencvs(ffmpeg: str, tmp_path: Path) -> None:
    """``decode_video`` against OpenCV's ``cv2.VideoCapture`` (the released metrics' reader, its
    BGR reversed) on an MP4 of noisy frames: the same pixels."""
    cv2 = pytest.importorskip("cv2")
    frames = np.random.default_rng(0).integers(0, 256, (30, 48, 64, 3), dtype=np.uint8)
    path = tmp_path / "noise.mp4"
    encode_mp4(frames, path)
    capture = cv2.VideoCapture(str(path))
    read = []
    while (frame := capture.read())[0]:
        read.append(frame[1][..., ::-1])
    capture.release()
    assert np.array_equal(decode_video(path), np.stack(read))


def test_codec_errors_are_one_line(ffmpeg: str, tmp_path: Path) -> None:
    with pytest.raises(VideoError, match="even width"):
        encode_mp4(np.zeros((2, 15, 16, 3), np.uint8), tmp_path / "odd.mp4")
    with pytest.raises(VideoError, match=r"uint8 \(T, H, W, 3\)"):
        encode_mp4(np.zeros((2, 16, 16, 4), np.uint8), tmp_path / "rgba.mp4")
    (tmp_path / "junk.mp4").write_bytes(b"not a video")
    with pytest.raises(VideoError, match="cannot read"):
        decode_video(tmp_path / "junk.mp4")


def test_a_missing_codec_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_imageio_ffmpeg(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "imageio_ffmpeg":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_imageio_ffmpeg)
    with pytest.raises(VideoCodecUnavailable) as error:
        check_codec()
    assert "pip install 'svgeval[video]'" in str(error.value) and "\n" not in str(error.value)

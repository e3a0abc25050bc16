"""Frames of animated SVG as the released video scorers see them: sampling and MP4.

* :func:`sample_indices` picks ``count`` frames of ``total`` as SArena does
  (InternSVG ``metrics/video/CLIP_video.py:22-40``, ``sample_frames_from_video``):
  ``np.linspace(0, total - 1, count, dtype=int)``, i.e. evenly spaced positions truncated toward
  zero; for 150 frames and 8 samples, frames 0, 21, 42, 63, 85, 106, 127 and 149. With
  ``unique=True`` it is ``np.unique(np.round(...))`` of ``metrics/inference/video_api.py:23-55``
  (the 8 frames shown to a video-to-animation model), which differs only when ``total < count``.
* :func:`encode_mp4` writes what InternSVG's ``utils/svg_animate.py`` writes with moviepy 2
  (``write_videofile(codec="libx264", preset="medium", ffmpeg_params=["-pix_fmt", "yuv420p"])``):
  raw RGB frames at ``-r 30.00`` into libx264, preset medium, yuv420p, x264's default CRF 23, no
  audio, with the ffmpeg binary of ``imageio-ffmpeg`` (the one moviepy runs).
* :func:`moviepy_frame_indices` says which of the rendered frames such a video holds: moviepy 2's
  ``ImageSequenceClip`` of 150 frames at 30 fps writes 149 (its duration is a float sum,
  4.999999999999992 s, and ``int(duration * fps)`` is 149), and under NumPy 2 it writes frame
  k - 1 in place of frame k at 25 positions (its start times are computed in float32). Checked
  with moviepy 2.2.1 and the same ffmpeg: ``encode_mp4(frames[moviepy_frame_indices(150)])`` gives
  the same bytes as InternSVG's call.
* :func:`decode_video` reads every frame back as RGB ``uint8`` (:func:`decode_sampled` keeps
  only the sampled ones); :func:`through_codec` is both, so that frames drawn here carry the same
  codec loss as the released ground-truth videos.

Frames can also go to the metrics without any codec (no ``imageio-ffmpeg`` needed): the pixels
are then the renderer's, without the H.264 loss of the released videos. :func:`check_codec` says
up front, in one line, when the codec is missing.
"""

from __future__ import annotations

import bisect
import subprocess
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from svgeval.errors import SvgevalError, UserError
from svgeval.render.picture import Frames

FPS = 30.0
"""InternSVG's frame rate."""
CODEC_HINT = "install it with `pip install 'svgeval[video]'` (imageio-ffmpeg, which ships ffmpeg)"


class VideoCodecUnavailable(UserError):
    """The ffmpeg of ``imageio-ffmpeg`` is not installed."""


class VideoError(SvgevalError, ValueError):
    """A video could not be written or read."""


def sample_indices(total: int, count: int = 8, *, unique: bool = False) -> NDArray[np.int64]:
    """Indices of ``count`` frames spread over ``total``: ``linspace(0, total - 1, count, int)``.

    >>> sample_indices(150).tolist()
    [0, 21, 42, 63, 85, 106, 127, 149]
    >>> sample_indices(5).tolist(), sample_indices(5, unique=True).tolist()
    ([0, 0, 1, 1, 2, 2, 3, 4], [0, 1, 2, 3, 4])
    """
    if total <= 0:
        return np.zeros(0, dtype=np.int64)
    indices = np.linspace(0, total - 1, count, dtype=int).astype(np.int64)
    return np.unique(np.round(indices)).astype(np.int64) if unique else indices


def moviepy_frame_indices(images: int, fps: float = FPS, *, numpy2: bool = True) -> list[int]:
    """Which of ``images`` frames moviepy 2 writes for ``ImageSequenceClip(images, fps)``.

    moviepy 2.0-2.2.1 (``video/io/ImageSequenceClip.py:101-118``, ``Clip.py:554-559``) writes
    ``int(sum([1 / fps] * images) * fps)`` frames; frame *k* (at ``t = k / fps``) is the last
    image whose start ``i / fps - eps32`` is at most ``t``. NumPy 2 computes that start in float32
    (a Python float minus a float32 scalar stays float32), which can round it above ``t``: then
    frame *k* is image *k - 1*. With ``numpy2=False`` (NumPy 1 computes in float64) frame *k* is
    image *k*. Values obtained by running moviepy 2.2.1 under NumPy 2.4.6 and 1.26.4
    (``tests/upstream/moviepy_frames.py``):

    >>> [k for k, i in enumerate(moviepy_frame_indices(150)) if i != k][:4]
    [72, 73, 74, 87]
    >>> len(moviepy_frame_indices(150)), moviepy_frame_indices(150, numpy2=False) == list(range(149))
    (149, True)
    """
    eps = np.finfo(np.float32).eps
    if numpy2:
        starts = [float(np.float32(np.float32(i / fps) - eps)) for i in range(images)]
    else:
        starts = [i / fps - float(eps) for i in range(images)]
    count = int(sum(1.0 / fps for _ in range(images)) * fps)
    return [bisect.bisect_right(starts, k / fps) - 1 for k in range(count)]


def check_codec() -> str:
    """The path of the ffmpeg binary; raises :class:`VideoCodecUnavailable` with one line."""
    try:
        import imageio_ffmpeg
    except ImportError:
        raise VideoCodecUnavailable(f"imageio-ffmpeg is not installed: {CODEC_HINT}") from None
    try:
        return str(imageio_ffmpeg.get_ffmpeg_exe())
    except RuntimeError as error:
        raise VideoCodecUnavailable(f"no ffmpeg binary found ({error}): {CODEC_HINT}") from None


def encode_command(path: Path, width: int, height: int, fps: float = FPS) -> list[str]:
    """The ffmpeg command of :func:`encode_mp4` (moviepy 2's, for InternSVG's arguments)."""
    return [
        check_codec(), "-y", "-loglevel", "error", "-f", "rawvideo", "-vcodec", "rawvideo",
        "-s", f"{width}x{height}", "-pix_fmt", "rgb24", "-r", f"{fps:.02f}", "-an", "-i", "-",
        "-vcodec", "libx264", "-preset", "medium", "-pix_fmt", "yuv420p", str(path),
    ]


def encode_mp4(frames: Frames, path: str | Path, fps: float = FPS) -> None:
    """Write ``frames`` (T, H, W, 3) ``uint8`` RGB as InternSVG's MP4 (see the module docstring).

    Width and height must be even (yuv420p). Raises :class:`VideoError` if ffmpeg fails.
    """
    if frames.ndim != 4 or frames.shape[-1] != 3 or frames.dtype != np.uint8 or not len(frames):
        raise VideoError(f"frames must be uint8 (T, H, W, 3) with T > 0, not {frames.shape}")
    height, width = frames.shape[1:3]
    if width % 2 or height % 2:
        raise VideoError(f"yuv420p needs an even width and height, not {width}x{height}")
    command = encode_command(Path(path), width, height, fps)
    result = subprocess.run(command, input=np.ascontiguousarray(frames).tobytes(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    if result.returncode:
        message = result.stderr.decode(errors="replace").strip().splitlines()
        raise VideoError(f"ffmpeg could not write {path}: {message[-1] if message else '?'}")


def decode_video(path: str | Path) -> Frames:
    """Every frame of the video at ``path`` as ``uint8`` RGB (T, H, W, 3).

    Raises :class:`VideoError` when it cannot be read.
    """
    frames, height, width = _decoded(path)
    return _stacked(frames, range(len(frames)), height, width)


def decode_sampled(path: str | Path, count: int = 8, *, unique: bool = False) -> Frames:
    """The frames of the video at ``path`` at :func:`sample_indices` (``count``, ``unique``),
    as :func:`decode_video` would give them: every frame is decoded (the count is known at the
    end), only those are kept (a 150-frame video at 448 px is 90 MB of pixels)."""
    frames, height, width = _decoded(path)
    return _stacked(frames, sample_indices(len(frames), count, unique=unique).tolist(),
                    height, width)


def _decoded(path: str | Path) -> tuple[list[bytes], int, int]:
    """The raw RGB frames of the video at ``path`` (ffmpeg's, through ``imageio-ffmpeg``), its
    height and its width; raises :class:`VideoError` when it cannot be read."""
    check_codec()
    import imageio_ffmpeg

    reader: Iterator[object] = imageio_ffmpeg.read_frames(str(path), pix_fmt="rgb24")
    try:
        meta = next(reader)
        assert isinstance(meta, dict)
        width, height = meta["size"]
        frames = [data for data in reader if isinstance(data, bytes)]
    except (OSError, RuntimeError, StopIteration) as error:
        raise VideoError(f"cannot read {path}: {str(error).strip().splitlines()[0]}") from None
    finally:
        close = getattr(reader, "close", None)
        if close is not None:
            close()
    return frames, height, width


def _stacked(frames: Sequence[bytes], indices: Iterable[int], height: int, width: int) -> Frames:
    """``frames[i]`` for ``i`` in ``indices``, as one (T, H, W, 3) array."""
    picked = [np.frombuffer(frames[index], np.uint8) for index in indices]
    if not picked:
        return np.zeros((0, height, width, 3), dtype=np.uint8)
    return np.stack(picked).reshape(len(picked), height, width, 3)


def through_codec(frames: Frames, fps: float = FPS) -> Frames:
    """``frames`` written as InternSVG's MP4 and read back: the pixels its metrics would see."""
    with tempfile.TemporaryDirectory(prefix="svgeval-video-") as folder:
        path = Path(folder) / "frames.mp4"
        encode_mp4(frames, path, fps)
        return decode_video(path)

"""Videos of SArena's animation track: an answer's SVG drawn as InternSVG's MP4, the ground-truth
videos of ``SArena.zip``, and the black stand-in of a failed answer.

InternSVG's ``utils/svg_animate.py`` (77a891e) draws an answer in Chromium for 5 s at 30 fps
(150 frames, ``t = i / 30``) on a 448 x 448 page (128 x 128 for the ``video_128`` folder FVD
reads) and writes it with moviepy 2 as H.264 (``libx264``, preset medium, yuv420p): 149 of the
150 frames (:func:`~svgeval.render.video.moviepy_frame_indices`). The metrics then read the MP4 back.
:class:`AnswerVideos` does the same with svgeval's isolated Chromium
(:class:`~svgeval.render.animation.BrowserRenderer`: no network, no file, no page script, a time
limit) and ffmpeg (:func:`~svgeval.render.video.through_codec`); ``encode=False`` skips the codec
(the renderer's pixels, without the H.264 loss the released ground-truth videos carry).

What the metrics read of a video (8 sampled frames at 448 px, one 16-frame window at 128 px) is
kept, compressed, in memory for the run, so that the per-sample, batched and set-level stages
draw each answer once, and on disk (``$SVGEVAL_CACHE/animations/``), so that a resumed or
re-scored run, a shard or another epoch of the same answer does not draw it again: 150 frames
take seconds in the browser. A kept part's key is ``sha256(svg | size | part | Chromium build
and svgeval's page code | codec)``: another browser, page or codec never reads it. Through the
codec, the MP4 itself (a few KB) is kept there too, under the part name ``mp4``
(:meth:`AnswerVideos.mp4`): a part not kept yet is read from it, not drawn again, and the
built-in sample's videos are drawn through it (an answer equal to a sample's SVG, the oracle's,
is not drawn a second time). Failures are not kept (a time-out can depend on the machine's
load). Deleting the folder is always safe.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import tempfile
import threading
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

import numpy as np

from svgeval.render.animation import (
    DRAWINGS_AT_ONCE,
    AnimationSpec,
    BrowserRenderer,
    BrowserUnavailable,
    drawing_identity,
)
from svgeval.render.disk_cache import write_atomically
from svgeval.render.picture import Frames, RenderFailure
from svgeval.render.pool import RenderWorkersLost
from svgeval.render.video import VideoError, decode_video, encode_mp4, moviepy_frame_indices

SIZE = 448
"""The page of ``video/`` (frame metrics, ViCLIP)."""
FVD_SIZE = 128
"""The page of ``video_128/`` (FVD)."""
FRAMES = 150
"""5 s at 30 fps, as drawn; moviepy writes 149 of them."""


def black_video(size: int) -> Frames:
    """The stand-in of a failed answer: 150 black frames of ``size`` px, the reading the release
    intends with ``example/pure_black.mp4`` / ``pure_black_128.mp4`` (absent from its repository,
    see ``docs/suites/sarena.md``)."""
    return np.zeros((FRAMES, size, size, 3), np.uint8)


def _decodes(path: Path) -> bool:
    """Whether ffmpeg reads a first frame of the MP4 at ``path`` (kept files are written
    atomically: one that is not an MP4 at all is what this catches)."""
    import imageio_ffmpeg

    if not path.is_file():
        return False
    reader = imageio_ffmpeg.read_frames(str(path), pix_fmt="rgb24")
    try:
        next(reader)
        return isinstance(next(reader), bytes)
    except (OSError, RuntimeError, StopIteration):
        return False
    finally:
        reader.close()


def _key(svg: str, size: int, part: str) -> tuple[str, str, str]:
    """What a kept part of ``svg``'s video at ``size`` px is looked up by (the drawing's and the
    codec's identity are added on disk: :meth:`AnswerVideos._path`)."""
    return hashlib.sha256(svg.encode("utf-8", "surrogatepass")).hexdigest(), str(size), part


def read_video(path: Path) -> Frames:
    """Every frame of a ground-truth MP4 as RGB ``uint8`` (T, H, W, 3)."""
    return decode_video(path)


class AnswerVideos:
    """Answers drawn as InternSVG's videos, each once per run.

    Up to :data:`~svgeval.render.animation.DRAWINGS_AT_ONCE` answers are drawn at once (a browser
    each, started on its first drawing). ``timeout_s`` bounds one animation (150
    frames) in wall-clock time; past it the browser's process group is killed and the answer
    is a ``timeout`` failure. A browser that cannot start is svgeval's failure, not the
    answer's: :class:`RenderWorkersLost` (the run stops with one line, keeping finished
    samples).
    """

    def __init__(self, timeout_s: float, encode: bool = True, cache: Path | None = None) -> None:
        self.timeout_s = timeout_s
        self.encode = encode
        self.cache = cache
        """The folder of the parts kept on disk (None: memory only)."""
        self._browser: BrowserRenderer | None = None
        self._lock = threading.Lock()
        self._kept: dict[tuple[str, str, str], bytes | RenderFailure] = {}

    def __getstate__(self) -> dict[str, object]:
        """What a copy in another process (a Ray actor) starts from: the settings, not this
        process's browser, lock and videos."""
        return {"timeout_s": self.timeout_s, "encode": self.encode, "cache": self.cache}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__init__(state["timeout_s"], state["encode"], state["cache"])  # type: ignore[misc]

    def _renderer(self) -> BrowserRenderer:
        with self._lock:
            if self._browser is None:
                self._browser = BrowserRenderer(workers=DRAWINGS_AT_ONCE, timeout_s=self.timeout_s)
            return self._browser

    def video(self, svg: str, size: int) -> Frames | RenderFailure:
        """``svg`` drawn at ``size`` px as the released MP4 holds it (149 frames), or why not:
        through the codec, the MP4 of :meth:`mp4` decoded (the kept file itself, when there is
        one that decodes)."""
        if not self.encode:
            return self._frames(svg, size)
        kept = self._path(_key(svg, size, "mp4"))
        if kept is not None and kept.is_file():
            with contextlib.suppress(VideoError):  # not an MP4: drawn again
                return decode_video(kept)
        with tempfile.TemporaryDirectory(prefix="svgeval-video-") as folder:
            written = self._encoded(svg, size, Path(folder), kept)
            return written if isinstance(written, RenderFailure) else decode_video(written)

    def mp4(self, svg: str, size: int) -> bytes | RenderFailure:
        """``svg`` drawn at ``size`` px as InternSVG's MP4 file (its bytes), or why not; kept on
        disk (a file that does not decode counts as none: drawn again)."""
        kept = self._path(_key(svg, size, "mp4"))
        if kept is not None and _decodes(kept):
            return kept.read_bytes()
        with tempfile.TemporaryDirectory(prefix="svgeval-video-") as folder:
            written = self._encoded(svg, size, Path(folder), kept)
            return written if isinstance(written, RenderFailure) else written.read_bytes()

    def _encoded(self, svg: str, size: int, folder: Path,
                 kept: Path | None) -> Path | RenderFailure:
        """``svg`` drawn and written as InternSVG's MP4 in ``folder`` (and kept at ``kept``), or
        why it does not draw."""
        frames = self._frames(svg, size)
        if isinstance(frames, RenderFailure):
            return frames
        written = folder / "answer.mp4"
        encode_mp4(np.ascontiguousarray(frames), written)
        if kept is not None:
            write_atomically(kept, written.read_bytes())
        return written

    def _frames(self, svg: str, size: int) -> Frames | RenderFailure:
        """The 149 frames of ``svg`` at ``size`` px that moviepy writes, as drawn, or why not."""
        try:
            drawn = self._renderer().animate(svg, AnimationSpec(size, size))
        except BrowserUnavailable as error:
            raise RenderWorkersLost(f"{error}") from None
        if isinstance(drawn, RenderFailure):
            return drawn
        return drawn[..., :3][moviepy_frame_indices(len(drawn))]

    def part(self, svg: str, size: int, name: str,
             select: Callable[[Frames], Frames]) -> Frames | RenderFailure:
        """``select`` of :meth:`video`, kept under ``name`` for the run (or the failure)."""
        key = _key(svg, size, name)
        with self._lock:
            known = self._kept.get(key)
        if isinstance(known, RenderFailure):
            return known
        if known is None and (stored := self._stored(key)) is not None:
            with self._lock:
                self._kept[key] = known = stored
        if known is not None:
            return np.asarray(np.load(io.BytesIO(known))["frames"], np.uint8)
        drawn = self.video(svg, size)
        if isinstance(drawn, RenderFailure):
            kept: bytes | RenderFailure = drawn
            chosen: Frames | RenderFailure = drawn
        else:
            chosen = select(drawn)
            buffer = io.BytesIO()
            np.savez_compressed(buffer, frames=chosen)
            kept = buffer.getvalue()
            self._store(key, kept)
        with self._lock:
            self._kept[key] = kept
        return chosen

    def _path(self, key: tuple[str, str, str]) -> Path | None:
        if self.cache is None:
            return None
        try:
            browser = drawing_identity()
        except BrowserUnavailable:  # nothing to key on: the drawing says why (video())
            return None
        codec = "imageio-ffmpeg " + version("imageio-ffmpeg") if self.encode else "frames"
        name = hashlib.sha256("|".join((*key, browser, codec)).encode()).hexdigest()
        return self.cache / name[:2] / f"{name}.{'mp4' if key[2] == 'mp4' else 'npz'}"

    def _stored(self, key: tuple[str, str, str]) -> bytes | None:
        """The part kept on disk under ``key``, or None (a file that is not one counts as
        none)."""
        path = self._path(key)
        try:
            data = path.read_bytes() if path is not None else b""
            np.load(io.BytesIO(data))["frames"]
        except (OSError, ValueError, KeyError, EOFError):
            return None
        return data

    def _store(self, key: tuple[str, str, str], data: bytes) -> None:
        """Keep ``data`` on disk under ``key`` (atomically: concurrent runs and a kill never
        leave a partial file)."""
        path = self._path(key)
        if path is not None:
            write_atomically(path, data)

    def close(self) -> None:
        """Stop the browser (a later :meth:`video` starts a fresh one)."""
        with self._lock:
            browser, self._browser = self._browser, None
        if browser is not None:
            browser.close()

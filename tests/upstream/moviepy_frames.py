"""Which frames InternSVG's released video writer puts in an MP4, and svgeval's encoder against it.

InternSVG (hmwang2002/InternSVG at ``77a891e``), ``utils/svg_animate.py``'s ``svg_to_mp4``
unmodified, with moviepy 2.2.1 (its ``ImageSequenceClip(frame_paths, fps=30).write_videofile
(codec="libx264", preset="medium", ffmpeg_params=["-pix_fmt", "yuv420p"])``) and
imageio-ffmpeg's ffmpeg, on 150 frames of 32 x 32 pixels whose frame ``i`` shows the 8 bits of
``i`` as vertical stripes (white 1, black 0): the frame decoded back tells which PNG it is,
through H.264's loss. The only stand-in is the browser: ``pyppeteer.launch`` answers a page
whose ``screenshot`` writes the next of those frames as the PNG the release asks for (its other
calls do nothing), so the release captures its ``DURATION_SECONDS * FPS`` frames and writes them
as it does.

Prints, for ``tests/render/test_video.py`` and ``docs/animation.md``: ``numpy`` (the version the
run used), ``frames_written`` (how many the MP4 holds), ``shifted`` (positions ``k`` whose frame
is not PNG ``k``), ``shifted_by_one`` (each of those is PNG ``k - 1``) and
``same_bytes_as_encode_mp4`` (``svgeval.render.video.encode_mp4`` of the frames the MP4 holds
writes the same file, byte for byte).

moviepy and what it imports beyond svgeval's test environment (imageio, imageio-ffmpeg, tqdm,
Pillow are there), and ``nest_asyncio`` (imported by ``svg_animate.py``), in a folder put first
on the import path; for the NumPy 1 reading, NumPy 1.26.4 in another one before it:

    pip install --target .venv/moviepy221 --no-deps moviepy==2.2.1 proglog decorator \\
        python-dotenv nest_asyncio
    PYTHONPATH=.venv/moviepy221:tests:src python -m upstream.moviepy_frames [--source GIT_REPO]
    pip install --target .venv/numpy1 --no-deps numpy==1.26.4
    PYTHONPATH=.venv/numpy1:.venv/moviepy221:tests:src python -m upstream.moviepy_frames
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from PIL import Image

from upstream import checkout

RELEASE = checkout.Release("hmwang2002/InternSVG", "77a891ea781f005a258b338739575f7db76f5f1b")
SIZE, BITS = 32, 8


def indexed_frames(count: int = 150) -> NDArray[np.uint8]:
    """``count`` RGB frames; frame ``i`` has ``BITS`` stripes, the most significant bit left."""
    bits = (np.arange(count)[:, None] >> np.arange(BITS - 1, -1, -1)) & 1
    stripes = np.repeat(bits * 255, SIZE // BITS, axis=1).astype(np.uint8)
    return np.repeat(stripes[:, None, :, None], SIZE, axis=1).repeat(3, axis=3)


def frame_index(frame: NDArray[np.uint8]) -> int:
    """The index :func:`indexed_frames` drew in ``frame`` (each stripe's mean against 128)."""
    means = frame.reshape(SIZE, BITS, SIZE // BITS, 3).mean(axis=(0, 2, 3))
    return int(sum(int(bright) << (BITS - 1 - k) for k, bright in enumerate(means > 128)))


class _Page:
    """A browser page whose screenshots are the next of ``frames``."""

    def __init__(self, frames: NDArray[np.uint8]) -> None:
        self.frames, self.shots = frames, 0

    async def screenshot(self, options: dict[str, Any]) -> None:
        Image.fromarray(self.frames[self.shots]).save(options["path"])
        self.shots += 1

    async def nothing(self, *arguments: Any) -> None:
        return None

    # pyppeteer's names
    setViewport = setContent = waitForSelector = evaluate = nothing


class _Browser:
    def __init__(self, page: _Page) -> None:
        self.page = page

    async def newPage(self) -> _Page:
        return self.page

    async def close(self) -> None:
        return None


def released_video(root: Path, frames: NDArray[np.uint8], work: Path) -> Path:
    """The MP4 the release's ``svg_to_mp4`` writes when the browser shows ``frames``."""
    browser = _Browser(_Page(frames))

    async def launch(**options: Any) -> _Browser:
        return browser

    checkout.stand_in_modules({"pyppeteer": {"launch": launch}})
    spec = importlib.util.spec_from_file_location("svg_animate", root / "utils" / "svg_animate.py")
    assert spec is not None and spec.loader is not None
    svg_animate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(svg_animate)
    svg = work / "ramp.svg"
    svg.write_text('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>')
    with checkout.running_in(root):
        asyncio.run(svg_animate.svg_to_mp4(str(svg), str(work / "out"), SIZE, SIZE))
    return work / "out" / "ramp.mp4"


def main() -> None:
    from svgeval.render.video import decode_video, encode_mp4

    root = checkout.from_command_line(RELEASE, __doc__)
    frames = indexed_frames()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        video = released_video(root, frames, work)
        written = [frame_index(frame) for frame in decode_video(video)]
        encode_mp4(frames[written], work / "ours.mp4")
        same = (work / "ours.mp4").read_bytes() == video.read_bytes()
    shifted = [k for k, image in enumerate(written) if image != k]
    print(json.dumps({"numpy": np.__version__, "frames_written": len(written),
                      "shifted": shifted,
                      "shifted_by_one": all(written[k] == k - 1 for k in shifted),
                      "same_bytes_as_encode_mp4": same}, indent=1))


if __name__ == "__main__":
    main()

"""What drawing an SVG gives: a :class:`Picture`, or the :class:`RenderFailure` saying why there
is none (:data:`Rendered`); never a blank picture or a string standing in for a failure.

A picture is the 8-bit (H, W, C) array a renderer drew (RGB on a background, RGBA without),
read-only, with a float view in [0, 1] for the pixel metrics (:attr:`Picture.floats`, made when
read and not kept: a batch's floats would hold eight times its bytes). A picture kept for later
(the run's render memo, a set-level metric's group, a reward group's reference sent to the
workers) is held compressed (:meth:`Picture.packed`): the same type, its pixels decompressed
each time they are read. An animation's frames are one ``uint8`` array, (T, H, W, C)
(:data:`Frames`).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import numpy as np
import zstandard
from numpy.typing import NDArray

FloatImage = NDArray[np.float64]
"""A picture's values as float64 in [0, 1] (:attr:`Picture.floats`): what the pixel metrics
compare."""
Frames = NDArray[np.uint8]
"""An animation's frames as ``uint8`` (T, H, W, 3), or (T, H, W, 4) on a transparent page."""


@dataclass(frozen=True)
class RenderFailure:
    """Why an SVG could not be rendered.

    ``kind`` is one of ``rejected`` (see ``reason``), ``render_error``, ``timeout``, ``crash``
    or ``out_of_memory``.
    """

    kind: str
    message: str
    reason: str | None = None

    @property
    def tag(self) -> str:
        """Short label for reports, e.g. ``rejected:external_reference`` or ``timeout``."""
        return f"{self.kind}:{self.reason}" if self.reason else self.kind


_CODECS = threading.local()
"""This thread's Zstandard compressor and decompressor (neither may be shared between threads;
making one for every render took half the time of the compression itself)."""


def _codecs() -> tuple[zstandard.ZstdCompressor, zstandard.ZstdDecompressor]:
    codecs: tuple[zstandard.ZstdCompressor, zstandard.ZstdDecompressor] | None = getattr(
        _CODECS, "codecs", None)
    if codecs is None:
        codecs = _CODECS.codecs = (zstandard.ZstdCompressor(level=1), zstandard.ZstdDecompressor())
    return codecs


class Picture:
    """A render: its 8-bit pixels (read-only), held as they are or compressed (:meth:`packed`).

    Compression is Zstandard level 1 (the GIL released; a 72 px Twemoji render 7x smaller, a
    512 px SVGenius icon 100x smaller; faster than zlib at level 1: ``bench/RESULTS.md``).
    Pickled as it is held, so a packed picture travels to and from the render workers compressed.
    """

    __slots__ = ("_data", "_pixels", "shape")

    def __init__(self, pixels: NDArray[np.uint8]) -> None:
        if pixels.dtype != np.uint8:
            raise TypeError(f"a picture's pixels are uint8, not {pixels.dtype}")
        if pixels.flags.writeable:
            pixels = pixels.view()
            pixels.flags.writeable = False
        self._pixels: NDArray[np.uint8] | None = pixels
        self._data: bytes | None = None
        self.shape: tuple[int, ...] = pixels.shape
        """(H, W, C): C is 3 on a background, 4 without."""

    @classmethod
    def _of_packed(cls, data: bytes, shape: tuple[int, ...]) -> Picture:
        picture = cls.__new__(cls)
        picture._pixels, picture._data, picture.shape = None, data, tuple(shape)
        return picture

    @property
    def pixels(self) -> NDArray[np.uint8]:
        """The ``uint8`` (H, W, C) pixels, read-only (decompressed anew for a packed picture:
        read them once)."""
        if self._pixels is not None:
            return self._pixels
        assert self._data is not None
        return np.frombuffer(_codecs()[1].decompress(self._data), np.uint8).reshape(self.shape)

    @property
    def floats(self) -> FloatImage:
        """``pixels / 255`` as float64 (a new array each time; not kept)."""
        return self.pixels.astype(np.float64) / 255.0

    @property
    def height(self) -> int:
        return self.shape[0]

    @property
    def width(self) -> int:
        return self.shape[1]

    @property
    def is_packed(self) -> bool:
        return self._data is not None

    @property
    def nbytes(self) -> int:
        """Bytes the pixels take as held: compressed when packed."""
        return len(self._data) if self._data is not None else int(np.prod(self.shape))

    def packed(self) -> Picture:
        """This picture with its pixels compressed (itself when it is packed already)."""
        if self._data is not None:
            return self
        compressed = _codecs()[0].compress(self.pixels.tobytes())
        # copied to bytes of its own size: the compressor's answer sits in a block the size
        # of the worst case (the raw pixels), and 6,000 kept renders held 46 MiB more
        return Picture._of_packed(bytes(memoryview(compressed)), self.shape)

    def unpacked(self) -> Picture:
        """This picture with its pixels decompressed once (itself when it is not packed)."""
        return self if self._data is None else Picture(self.pixels)

    def __reduce__(self) -> tuple[Any, ...]:
        if self._data is not None:
            return Picture._of_packed, (self._data, self.shape)
        return Picture, (self._pixels,)

    def __repr__(self) -> str:
        held = f", packed {len(self._data)} bytes" if self._data is not None else ""
        return f"Picture({'x'.join(map(str, self.shape))}{held})"


Rendered = Picture | RenderFailure
"""What drawing an SVG gives: its picture, or why there is none."""

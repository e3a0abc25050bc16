"""A render's one picture type: 8-bit pixels, read-only, a float view, held raw or packed."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from svgeval.render.cairo import RenderSpec, render_svg_uint8
from svgeval.render.picture import Picture

SVG = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 4"><rect width="2" height="4" '
       'fill="#ff8000"/></svg>')


def test_the_float_view_is_each_level_over_255() -> None:
    levels = np.arange(256, dtype=np.uint8).reshape(16, 16, 1).repeat(3, axis=-1)
    floats = Picture(levels).floats
    assert floats.dtype == np.float64 and floats.shape == (16, 16, 3)
    assert floats[0, 1].tolist() == [1 / 255] * 3 and floats[15, 15].tolist() == [1.0] * 3
    assert np.array_equal(np.rint(floats * 255).astype(np.uint8), levels)


def test_pixels_are_read_only_and_not_copied() -> None:
    drawn = render_svg_uint8(SVG, RenderSpec.square(8))
    picture = Picture(drawn)
    assert not picture.pixels.flags.writeable and np.shares_memory(picture.pixels, drawn)
    with pytest.raises(ValueError, match="read-only"):
        picture.pixels[0, 0, 0] = 1
    assert (picture.height, picture.width, picture.shape) == (8, 8, (8, 8, 3))
    assert picture.pixels[4, 2].tolist() == [255, 128, 0]


def test_only_uint8_pixels_make_a_picture() -> None:
    with pytest.raises(TypeError, match="uint8"):
        Picture(np.zeros((2, 2, 3)))


def test_a_packed_picture_holds_fewer_bytes_and_gives_the_same_pixels() -> None:
    picture = Picture(render_svg_uint8(SVG, RenderSpec.square(72)))
    packed = picture.packed()
    assert packed.is_packed and not picture.is_packed and packed.packed() is packed
    assert packed.nbytes < picture.nbytes / 10 and picture.nbytes == 72 * 72 * 3
    assert np.array_equal(packed.pixels, picture.pixels) and not packed.pixels.flags.writeable
    assert np.array_equal(packed.floats, picture.floats) and packed.shape == picture.shape
    assert not packed.unpacked().is_packed and picture.unpacked() is picture


def test_a_picture_pickles_as_it_is_held() -> None:
    picture = Picture(render_svg_uint8(SVG, RenderSpec.square(72)))
    packed = picture.packed()
    for held in (picture, packed):
        again = pickle.loads(pickle.dumps(held))
        assert again.is_packed == held.is_packed and np.array_equal(again.pixels, picture.pixels)
        assert not again.pixels.flags.writeable
    assert len(pickle.dumps(packed)) < len(pickle.dumps(picture)) / 10

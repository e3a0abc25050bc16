"""Vision messages: renders as PNG data URLs in the OpenAI chat format."""

from __future__ import annotations

import base64
import io

import numpy as np
import pytest
from PIL import Image

from svgeval.messages import has_images, png_bytes, png_data_url, user_message


def decode(url: str) -> np.ndarray:
    prefix = "data:image/png;base64,"
    assert url.startswith(prefix)
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(url[len(prefix) :]))))


def test_png_round_trip_uint8_and_float() -> None:
    rng = np.random.default_rng(0)
    pixels = rng.integers(0, 256, size=(9, 7, 3), dtype=np.uint8)
    assert np.array_equal(decode(png_data_url(png_bytes(pixels))), pixels)
    # a render in [0, 1] (what the Renderer returns) gives back the same uint8 pixels
    assert np.array_equal(decode(png_data_url(png_bytes(pixels / 255.0))), pixels)
    rgba = rng.integers(0, 256, size=(4, 5, 4), dtype=np.uint8)
    assert np.array_equal(decode(png_data_url(png_bytes(rgba))), rgba)
    assert png_bytes(pixels) == png_bytes(pixels.copy())  # same pixels, same bytes


def test_png_refuses_other_shapes() -> None:
    with pytest.raises(ValueError, match="shape"):
        png_bytes(np.zeros((4, 4), dtype=np.uint8))


def test_user_message_with_and_without_images() -> None:
    assert user_message("hi") == [{"role": "user", "content": "hi"}]
    assert not has_images(user_message("hi"))
    png = png_bytes(np.zeros((2, 2, 3), dtype=np.uint8))
    (message,) = user_message("look", [png, png])
    assert message["role"] == "user"
    text, first, second = message["content"]
    assert text == {"type": "text", "text": "look"}
    assert first["type"] == second["type"] == "image_url"
    assert first["image_url"]["url"] == png_data_url(png)
    assert has_images([{"role": "system", "content": "x"}, message])

"""Chat messages in the OpenAI format, with images.

A message is ``{"role": "user", "content": ...}`` where the content is a string, or a list of
parts: ``{"type": "text", "text": ...}`` and ``{"type": "image_url", "image_url": {"url":
"data:image/png;base64,..."}}`` (the Chat Completions vision format, which vLLM, Ollama,
OpenRouter and the OpenAI API accept). Tasks build their prompts with :func:`user_message`; a
render becomes an image part through :func:`png_bytes` and :func:`png_data_url`. The runner
refuses to send images to a model declared text-only (:func:`has_images`).
"""

from __future__ import annotations

import base64
import io
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

Message = dict[str, Any]
"""A chat message in the OpenAI format: ``{"role": "user", "content": str | list[part]}``."""


def png_bytes(image: NDArray[Any]) -> bytes:
    """A render as PNG bytes: ``uint8`` pixels as they are, floats in [0, 1] scaled to 0-255.

    ``image`` is (H, W, 3) RGB or (H, W, 4) RGBA, as :mod:`svgeval.render.cairo` returns it. The
    encoding is Pillow's default (no optimisation), so the same pixels give the same bytes.
    """
    if image.ndim != 3 or image.shape[2] not in (3, 4):
        raise ValueError(f"expected an (H, W, 3) or (H, W, 4) image, got shape {image.shape}")
    if image.dtype != np.uint8:
        image = np.rint(np.clip(image, 0.0, 1.0) * 255.0).astype(np.uint8)
    from PIL import Image  # imported here: a run whose prompts carry no image does not need it

    buffer = io.BytesIO()
    Image.fromarray(image, mode="RGB" if image.shape[2] == 3 else "RGBA").save(buffer, "PNG")
    return buffer.getvalue()


def png_data_url(png: bytes) -> str:
    """``data:image/png;base64,...`` for PNG bytes."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def image_part(png: bytes) -> dict[str, Any]:
    """A content part that carries a PNG image as a data URL."""
    return {"type": "image_url", "image_url": {"url": png_data_url(png)}}


def user_message(text: str, images: Sequence[bytes] = ()) -> list[Message]:
    """A one-message chat: the text alone, or the text followed by each PNG in ``images``."""
    if not images:
        return [{"role": "user", "content": text}]
    parts = [{"type": "text", "text": text}, *(image_part(png) for png in images)]
    return [{"role": "user", "content": parts}]


def has_images(messages: Iterable[Message]) -> bool:
    """True when any message carries an image part."""
    for message in messages:
        content = message.get("content")
        if isinstance(content, list) and any(
            isinstance(part, dict) and part.get("type") == "image_url" for part in content
        ):
            return True
    return False

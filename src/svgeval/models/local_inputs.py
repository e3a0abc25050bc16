"""What a backend that runs a checkpoint in this process takes from a request.

svgeval's prompts are chat messages in the OpenAI format (:mod:`svgeval.messages`): a
message's content is a string, or a list of ``text`` parts and ``image_url`` parts whose URL is
a base64 ``data:`` URL. A chat template wants the text, with an ``{"type": "image"}`` part where
each picture goes (:func:`template_messages`), and the processor wants the pictures themselves
(:func:`message_images`); a text model's template wants each content as one string
(:func:`text_messages`). Only ``data:`` URLs are read: an in-process backend never fetches a URL.

:func:`sample_seed` is the seed of one answer's sampling: a rerun, a resumed run and a run that
batches differently draw the same tokens for it.
"""

from __future__ import annotations

import base64
import hashlib
import io
from typing import TYPE_CHECKING, Any

from svgeval.messages import Message

if TYPE_CHECKING:
    from PIL.Image import Image

DEFAULT_MAX_NEW_TOKENS = 2048
"""Tokens an in-process backend generates at most when ``--max-tokens`` is not given."""


def _parts(content: Any) -> list[dict[str, Any]]:
    """A message's content as a list of parts (a string is one text part)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if not isinstance(content, list):
        raise TypeError(f"message content must be a string or a list of parts, got {content!r}")
    return content


def _is_image(part: dict[str, Any]) -> bool:
    return part.get("type") in ("image_url", "image")


def text_messages(messages: list[Message]) -> list[Message]:
    """The messages with each content as one string (text parts joined by a newline, as vLLM's
    server does for a template that takes strings); ValueError if a message carries an image."""
    flat = []
    for message in messages:
        parts = _parts(message.get("content", ""))
        if any(_is_image(part) for part in parts):
            raise ValueError("the prompt carries an image, and this model reads text only")
        flat.append({**message, "content": "\n".join(str(part.get("text", "")) for part in parts)})
    return flat


def template_messages(messages: list[Message]) -> list[Message]:
    """The messages as a processor's chat template takes them: content a list of parts, each
    image part replaced by ``{"type": "image"}`` (the picture goes to the processor)."""
    return [
        {**message, "content": [
            {"type": "image"} if _is_image(part) else {"type": "text", "text": part.get("text", "")}
            for part in _parts(message.get("content", ""))
        ]}
        for message in messages
    ]


def message_images(messages: list[Message]) -> list[Image]:
    """The pictures of the messages' image parts, in order, as RGB images (a transparent pixel
    is drawn on white, as every svgeval render is)."""
    return [
        decode_image(part["image_url"]["url"])
        for message in messages
        for part in _parts(message.get("content", ""))
        if part.get("type") == "image_url"
    ]


def decode_image(url: str) -> Image:
    """The picture in a ``data:image/...;base64,`` URL, as RGB; ValueError for any other URL."""
    header, comma, payload = url.partition(",")
    if not (header.startswith("data:image/") and header.endswith(";base64") and comma):
        raise ValueError(f"only base64 data: URLs of images are read, got {url[:40]!r}")
    from PIL import Image  # imported here: text-only runs need no Pillow

    picture: Image.Image = Image.open(io.BytesIO(base64.b64decode(payload)))
    if picture.mode in ("RGBA", "LA", "P"):
        picture = picture.convert("RGBA")
        white = Image.new("RGBA", picture.size, (255, 255, 255, 255))
        return Image.alpha_composite(white, picture).convert("RGB")
    return picture.convert("RGB")


def sample_seed(seed: int | None, sample_id: str) -> int:
    """The sampling seed of one answer: the first 63 bits of SHA-256 of
    ``"svgeval-sample:<seed>:<sample id>"``, where ``seed`` is the request's (``--seed`` for
    epoch 1, a seed per epoch after it: :func:`svgeval.runner.units.epoch_seed`)."""
    digest = hashlib.sha256(f"svgeval-sample:{seed or 0}:{sample_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1

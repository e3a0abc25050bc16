"""A tiny randomly initialised ViCLIP saved as the release saves it: ``{"model": state_dict}`` in
``ViClip-InternVid-10M-FLT.pth`` with the InternVid key layout (``vision_encoder.*``,
``text_encoder.*``, ``temp``), and a small vocabulary in the format of
``bpe_simple_vocab_16e6.txt.gz`` beside it. Weights come from NumPy's PCG64 (seed 0), so the
released model code run elsewhere on the same file gives the numbers the tests record."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import numpy as np
import pytest

WORDS = ("a red square sliding right blue circle growing green turning yellow and back black "
         "dot moving slowly across the frame")
VISION = {"width": 64, "layers": 2, "patch": 14, "grid": 2, "frames": 8}
TEXT = {"width": 32, "layers": 2, "context": 32}
EMBED = 16


def merges() -> list[str]:
    """BPE merges that build each word of :data:`WORDS` left to right (``simple_tokenizer``'s
    merge format: two symbols, the last one of a word ending in ``</w>``)."""
    out: list[str] = []
    for word in dict.fromkeys(WORDS.split()):
        symbols = [*word[:-1], word[-1] + "</w>"]
        while len(symbols) > 1:
            line = f"{symbols[0]} {symbols[1]}"
            if line not in out:
                out.append(line)
            symbols = [symbols[0] + symbols[1], *symbols[2:]]
    return out


def write_vocabulary(path: Path) -> int:
    """The merges as a ``bpe_simple_vocab_16e6.txt.gz``-format file; returns the vocabulary
    size (256 bytes, the same with ``</w>``, one token per merge, two special tokens)."""
    lines = merges()
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write("\n".join(["#version: 0.2 (tiny)", *lines]))
    return 512 + len(lines) + 2


def _blocks(rng: np.random.Generator, prefix: str, width: int, layers: int) -> dict[str, Any]:
    out = {}
    scale = width ** -0.5
    for i in range(layers):
        p = f"{prefix}transformer.resblocks.{i}."
        out |= {p + "attn.in_proj_weight": rng.normal(0, scale, (3 * width, width)),
                p + "attn.in_proj_bias": rng.normal(0, 0.02, 3 * width),
                p + "attn.out_proj.weight": rng.normal(0, scale, (width, width)),
                p + "attn.out_proj.bias": rng.normal(0, 0.02, width),
                p + "mlp.c_fc.weight": rng.normal(0, scale, (4 * width, width)),
                p + "mlp.c_fc.bias": rng.normal(0, 0.02, 4 * width),
                p + "mlp.c_proj.weight": rng.normal(0, (4 * width) ** -0.5, (width, 4 * width)),
                p + "mlp.c_proj.bias": rng.normal(0, 0.02, width)}
        for norm in ("ln_1", "ln_2"):
            out |= {p + f"{norm}.weight": 1 + rng.normal(0, 0.1, width),
                    p + f"{norm}.bias": rng.normal(0, 0.1, width)}
    return out


def tiny_viclip_state(vocab: int, seed: int = 0) -> dict[str, Any]:
    """The state dict of a 2-layer ViCLIP (video 64 wide, 28 px, 14 px patches, 8 frames; text
    32 wide, 32 positions, ``vocab`` tokens; 16-d features) as float32 tensors."""
    import torch

    rng = np.random.default_rng(seed)
    v, t = VISION, TEXT
    w, tw = v["width"], t["width"]
    ve, te = "vision_encoder.", "text_encoder."
    state = {
        "temp": np.array(0.01),
        ve + "conv1.weight": rng.normal(0, (3 * v["patch"] ** 2) ** -0.5,
                                        (w, 3, 1, v["patch"], v["patch"])),
        ve + "class_embedding": rng.normal(0, w ** -0.5, w),
        ve + "positional_embedding": rng.normal(0, w ** -0.5, (v["grid"] ** 2 + 1, w)),
        ve + "temporal_positional_embedding": rng.normal(0, 0.5, (1, v["frames"], w)),
        ve + "proj": rng.normal(0, w ** -0.5, (w, EMBED)),
        te + "token_embedding.weight": rng.normal(0, 0.5, (vocab, tw)),
        te + "positional_embedding": rng.normal(0, 0.1, (t["context"], tw)),
        te + "text_projection": rng.normal(0, tw ** -0.5, (tw, EMBED)),
        **_blocks(rng, ve, w, v["layers"]),
        **_blocks(rng, te, tw, t["layers"]),
    }
    for prefix, norm, width in ((ve, "ln_pre", w), (ve, "ln_post", w), (te, "ln_final", tw)):
        state[f"{prefix}{norm}.weight"] = 1 + rng.normal(0, 0.1, width)
        state[f"{prefix}{norm}.bias"] = rng.normal(0, 0.1, width)
    return {key: torch.from_numpy(np.asarray(value, np.float32)) for key, value in state.items()}


def save_tiny_viclip(folder: Path, seed: int = 0) -> Path:
    """``folder`` with ``ViClip-InternVid-10M-FLT.pth`` and ``bpe_simple_vocab_16e6.txt.gz``."""
    import torch

    folder.mkdir(parents=True, exist_ok=True)
    vocab = write_vocabulary(folder / "bpe_simple_vocab_16e6.txt.gz")
    torch.save({"model": tiny_viclip_state(vocab, seed)}, folder / "ViClip-InternVid-10M-FLT.pth")
    return folder


@pytest.fixture(scope="session")
def tiny_viclip_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the tiny ViCLIP checkpoint and its vocabulary, as released."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    return save_tiny_viclip(tmp_path_factory.mktemp("tiny_viclip"))


CAPTIONS = ("a red square sliding right",
            "A  Black dot &amp; a ‘green’ circle, moving slowly across the frame!",
            "the quick brown fox jumps over the lazy dog while a yellow square keeps turning")
"""Captions for the recorded numbers: known words, white space, an HTML entity, curly quotes
and capitals (the release's cleaning), and one longer than 32 tokens (cut, end token kept)."""
MIXED_CAPTIONS = ("Crème brûlée à la carte, naïve façade",
                  "一只红色的猫 in a 正方形",
                  "a smiling face 😀 with ‘curly’ and “double” quotes",
                  "Tom &amp;amp; Jerry &lt;3 &#x27;cartoon&#x27;",
                  '<svg viewBox="0 0 10 10"><circle cx="5" cy="5" r="4" fill="#f00"/></svg>')
"""Captions on which the release's tokenizer, with the real vocabulary the release ships, and
svgeval's are compared (``tests/upstream/viclip.py``): accents, CJK, an emoji, curly quotes,
HTML entities (one escaped twice) and SVG code."""


def sample_videos() -> list[np.ndarray]:
    """Three 30-frame 40 x 48 RGB videos (not square: the resize squashes them): a red square
    moving right on grey, a grey ramp over time, and a colour gradient that scrolls."""
    square = np.full((30, 40, 48, 3), 128, np.uint8)
    for i in range(30):
        square[i, 10:22, i : i + 12] = (220, 30, 30)
    ramp = np.stack([np.full((40, 48, 3), 8 * i, np.uint8) for i in range(30)])
    y, x = np.mgrid[0:40, 0:48]
    scroll = np.stack([np.dstack([(x * 5 + 4 * i) % 256, (y * 6) % 256, (x + y + 9 * i) % 256])
                       for i in range(30)]).astype(np.uint8)
    return [square, ramp, scroll]

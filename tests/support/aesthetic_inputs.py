"""Inputs of the check of the LAION aesthetic score against OmniSVG's released
``metrics/compute_aesthetic.py`` (``tests/upstream/aesthetic.py``,
``tests/metrics/test_aesthetic_released.py``): a tiny CLIP shaped as the release needs it, its
OpenAI-layout copy for ``clip.load``, a random predictor head and six pictures.

The CLIP is ViT-L/14's geometry made small (224 px, patch 14, width 64, 2 layers) with ViT-L/14's
768-d projection (the release's ``MLP(768)``) and OpenAI's 49,408-token vocabulary (the release
also runs ``clip.tokenize`` on a prompt); its weights come from ``released_models.fill``, so the
same numbers come out under any torch or transformers version, and are float16 values, which
``clip.load`` keeps (it rounds weights through float16). The head has the improved predictor's
layout (``layers.{0,2,4,6,7}``) and sizes, its weights drawn from numpy, so that a score is of
the order of the real one's (about 5, spread by the picture).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from support.released_models import build_clip

CLIP_SEED = 45
HEAD_SEED = 46
CLIP_FILE = "ViT-L-14-tiny.pt"
HEAD_FILE = "sac+logos+ava1-l14-linearMSE.pth"
HEAD_SIZES = (768, 1024, 128, 64, 16, 1)
"""The improved predictor's ``MLP(768)``: Linear layers at ``layers.{0,2,4,6,7}``."""
PICTURES = ("disc", "stripes", "gradient", "blocks_600x400", "noise_224", "blank")


def build_l14_clip(folder: Path) -> Path:
    """The tiny CLIP in transformers' layout (what svgeval loads), saved in ``folder``."""
    return build_clip(folder, image_size=224, patch=14, seed=CLIP_SEED, projection=768,
                      intermediate=256, vocab=49408)


def write_openai_copy(clip_folder: Path, path: Path) -> Path:
    """The CLIP of ``clip_folder`` in OpenAI's key layout, float32, as a plain state dict (what
    ``clip.load`` reads from a file), written to ``path``."""
    import torch
    from transformers import CLIPModel

    from support.tiny_models import openai_layout

    torch.save(openai_layout(CLIPModel.from_pretrained(clip_folder), half=False), path)
    return path


def write_head(path: Path) -> Path:
    """A random predictor head: layer ``k``'s weights ``N(0, 1)`` for the first (its input is a
    unit vector) and ``N(0, 1/fan_in)`` after, biases ``0.1 N``, the last bias 5."""
    import torch

    state = {}
    for k, (key, fan_in, fan_out) in enumerate(zip((0, 2, 4, 6, 7), HEAD_SIZES, HEAD_SIZES[1:])):
        rng = np.random.default_rng([HEAD_SEED, k])
        scale = 1.0 if k == 0 else fan_in ** -0.5
        weight = rng.standard_normal((fan_out, fan_in)) * scale
        bias = 5.0 + 0.1 * rng.standard_normal(fan_out) if k == 4 else 0.1 * rng.standard_normal(fan_out)
        state[f"layers.{key}.weight"] = torch.from_numpy(weight.astype(np.float32))
        state[f"layers.{key}.bias"] = torch.from_numpy(bias.astype(np.float32))
    torch.save(state, path)
    return path


def pictures() -> dict[str, NDArray[np.uint8]]:
    """Six RGB pictures (uint8): four 1024 px squares as MMSVGBench's renders are (a red disc on
    white, blue stripes, a colour gradient, a white canvas), a 600 x 400 one (resized by its
    short side, then cropped) and 224 px noise (the network's own size, not resized)."""
    rng = np.random.default_rng(45)
    y, x = np.mgrid[0:1024, 0:1024]
    white = np.full((1024, 1024, 3), 255, np.uint8)
    disc = white.copy()
    disc[(x - 512) ** 2 + (y - 480) ** 2 < 300 ** 2] = (220, 30, 40)
    stripes = white.copy()
    stripes[((x + y) // 64) % 2 == 0] = (30, 60, 200)
    gradient = np.stack([x * 255 // 1023, y * 255 // 1023, (x + y) * 255 // 2046], -1)
    blocks = np.kron(rng.integers(0, 256, (8, 12, 3)), np.ones((50, 50, 1)))
    noise = rng.integers(0, 256, (224, 224, 3))
    drawn = (disc, stripes, gradient, blocks, noise, white)
    return {name: np.asarray(p, np.uint8) for name, p in zip(PICTURES, drawn)}


def write_pictures(folder: Path) -> dict[str, Path]:
    """:func:`pictures` as PNG files (lossless) in ``folder``: name -> path."""
    from PIL import Image

    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, picture in pictures().items():
        paths[name] = folder / f"{name}.png"
        Image.fromarray(picture).save(paths[name])
    return paths

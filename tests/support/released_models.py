"""Tiny random models that the released scorers and svgeval load from the same folders.

Unlike ``tiny_models`` (weights from torch's seeded initialisers), every parameter here is
drawn from numpy's PCG64 generator in sorted-name order, so that the same numbers come out
under any torch or transformers version: the released scorers run in their own environments
(InternSVG pins transformers 4.52.4, StarVector 4.49.0) and build these folders with this
module, and the tests rebuild them and check :func:`weights_digest` against the digest the
released run printed. Values are rounded to float16 precision, so OpenAI-layout copies (which
``clip.load`` rounds through float16) hold exactly the same numbers.

The CLIP tokenizer is OpenAI's byte-level BPE scheme with no merges (one token per character,
``</w>`` on a word's last one, ``<|startoftext|>``/``<|endoftext|>``), written as
``vocab.json``/``merges.txt`` that ``CLIPTokenizer`` reads in every transformers version; the
text model's ``eos_token_id`` is 2 as in the real openai configs (pooling at the largest id).
"""

from __future__ import annotations

import hashlib
import json
import zlib
from pathlib import Path
from typing import Any

import numpy as np


def _byte_symbols() -> list[str]:
    """OpenAI's printable stand-ins for the 256 byte values (GPT-2's ``bytes_to_unicode``)."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
                 *range(ord("®"), ord("ÿ") + 1)]
    extra = [b for b in range(256) if b not in printable]
    return [chr(c) for c in printable] + [chr(256 + n) for n in range(len(extra))]


def write_clip_tokenizer(folder: Path) -> None:
    """``vocab.json`` (514 symbols) and an empty ``merges.txt``, plus the tokenizer config."""
    symbols = _byte_symbols()
    vocab = [*symbols, *(s + "</w>" for s in symbols), "<|startoftext|>", "<|endoftext|>"]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vocab.json").write_text(json.dumps({t: i for i, t in enumerate(vocab)}),
                                       encoding="utf-8")
    (folder / "merges.txt").write_text("#version: 0.2\n", encoding="utf-8")
    (folder / "tokenizer_config.json").write_text(json.dumps({
        "tokenizer_class": "CLIPTokenizer", "model_max_length": 77, "do_lower_case": True,
        "bos_token": "<|startoftext|>", "eos_token": "<|endoftext|>",
        "unk_token": "<|endoftext|>", "pad_token": "<|endoftext|>"}), encoding="utf-8")


_RENAMED = (  # transformers 4.x parameter names -> the 5.x names (DINOv2's attention)
    ("attention.attention.query.", "attention.q_proj."),
    ("attention.attention.key.", "attention.k_proj."),
    ("attention.attention.value.", "attention.v_proj."),
    ("attention.output.dense.", "attention.o_proj."),
)


def canonical(name: str) -> str:
    """A parameter's name as transformers 5 spells it, whichever version built the model."""
    for old, new in _RENAMED:
        name = name.replace(old, new)
    return name


def fill(model: Any, seed: int) -> Any:
    """Every parameter of ``model`` drawn from ``numpy.random.default_rng([seed, crc32(name)])``
    (``name`` as :func:`canonical` spells it): norm scales ``1 + 0.1 N``, everything else
    ``0.05 N``, rounded to float16."""
    import torch

    with torch.no_grad():
        for name, param in model.named_parameters():
            key = canonical(name)
            rng = np.random.default_rng([seed, zlib.crc32(key.encode())])
            shape = tuple(param.shape)
            norm_scale = ("norm" in key.lower() or "ln_" in key) and key.endswith("weight")
            values = 1 + 0.1 * rng.standard_normal(shape) if norm_scale else (
                0.05 * rng.standard_normal(shape))
            param.copy_(torch.from_numpy(np.asarray(values, dtype=np.float16).astype(np.float32)))
    return model


def build_clip(folder: Path, image_size: int = 224, patch: int = 32, seed: int = 27,
               projection: int = 32, intermediate: int = 128, vocab: int = 514) -> Path:
    """A tiny CLIP (2 layers, width 64, 77 text positions) with the byte-level tokenizer and a
    CLIP image processor at ``image_size``, saved in ``folder``. ``intermediate=256`` (four
    times the width) is the shape OpenAI's ``clip.model.build_model`` infers, for an
    OpenAI-layout copy that ``clip.load`` reads (StarVector's CLIP-FID); ``vocab=49408`` is
    OpenAI's vocabulary, for released code that tokenizes with ``clip.tokenize`` (the
    tokenizer saved here uses the first 514 ids only)."""
    from transformers import CLIPConfig, CLIPImageProcessor, CLIPModel

    config = CLIPConfig(
        projection_dim=projection,
        text_config={"hidden_size": 64, "intermediate_size": intermediate, "num_hidden_layers": 2,
                     "num_attention_heads": 1, "vocab_size": vocab, "max_position_embeddings": 77,
                     "eos_token_id": 2, "bos_token_id": 0, "pad_token_id": 1,
                     "hidden_act": "quick_gelu"},
        vision_config={"hidden_size": 64, "intermediate_size": intermediate, "num_hidden_layers": 2,
                       "num_attention_heads": 1, "image_size": image_size, "patch_size": patch,
                       "hidden_act": "quick_gelu"},
    )
    fill(CLIPModel(config), seed).save_pretrained(folder)
    CLIPImageProcessor(size={"shortest_edge": image_size},
                       crop_size={"height": image_size, "width": image_size}).save_pretrained(folder)
    write_clip_tokenizer(folder)
    return folder


def build_dino(folder: Path, seed: int = 28) -> Path:
    """A tiny DINOv2 (518 px position grid, patch 14) with dinov2-base's image processor."""
    from transformers import BitImageProcessor, Dinov2Config, Dinov2Model

    config = Dinov2Config(hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                          mlp_ratio=2, image_size=518, patch_size=14)
    fill(Dinov2Model(config), seed).save_pretrained(folder)
    BitImageProcessor(do_resize=True, size={"shortest_edge": 256}, resample=3,
                      do_center_crop=True, crop_size={"height": 224, "width": 224},
                      do_rescale=True, rescale_factor=1 / 255, do_normalize=True,
                      image_mean=[0.485, 0.456, 0.406], image_std=[0.229, 0.224, 0.225],
                      do_convert_rgb=True).save_pretrained(folder)
    return folder


def build_roberta(folder: Path, seed: int = 29) -> Path:
    """A tiny RoBERTa (24 layers as roberta-large, so that bert-score's layer 17 exists; width
    32) with a byte-level BPE of no merges (one token per byte, ``Ġ`` marking a space, as
    GPT-2's), saved in ``folder`` in ``roberta-large``'s file layout."""
    from transformers import RobertaConfig, RobertaModel

    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    vocab = [*specials, *_byte_symbols()]
    config = RobertaConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=24,
                           num_attention_heads=2, intermediate_size=64,
                           max_position_embeddings=514, bos_token_id=0, pad_token_id=1,
                           eos_token_id=2)
    fill(RobertaModel(config), seed).save_pretrained(folder)
    (folder / "vocab.json").write_text(json.dumps({t: i for i, t in enumerate(vocab)}),
                                       encoding="utf-8")
    (folder / "merges.txt").write_text("#version: 0.2\n", encoding="utf-8")
    (folder / "tokenizer_config.json").write_text(json.dumps({
        "tokenizer_class": "RobertaTokenizer", "model_max_length": 512, "bos_token": "<s>",
        "eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>", "sep_token": "</s>",
        "cls_token": "<s>", "mask_token": "<mask>"}), encoding="utf-8")
    return folder


B32_DIGESTS = {"clip": "34a1cee85f1b0907", "dino": "973fd67688e7d3c2"}
"""Digests of :func:`build_b32_and_dino`'s folders, as the released StarVector, VectorGym and
SVGEditBench V2 runs printed them (transformers 4.49.0 and 4.57.1)."""


def build_b32_and_dino(root: Path) -> dict[str, Path]:
    """The CLIP shaped like ViT-B/32 (patch 32, 512-d projection, MLP four times the width, so
    that an OpenAI-layout copy loads in ``clip.load``) and the DINOv2 of those runs, digests
    checked: ``{"clip": folder, "dino": folder}``."""
    clip = build_clip(root / "clip", patch=32, seed=31, projection=512, intermediate=256)
    dino = build_dino(root / "dino")
    digests = {"clip": weights_digest(clip, "CLIPModel"), "dino": weights_digest(dino, "Dinov2Model")}
    assert digests == B32_DIGESTS, digests
    return {"clip": clip, "dino": dino}


def use_weights(weights: dict[str, str], monkeypatch: Any) -> None:
    """Point svgeval's model metrics at the built ``weights`` (environment variable -> folder),
    LPIPS at its packaged real VGG."""
    for key, value in weights.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("SVGEVAL_LPIPS_MODEL", raising=False)


def weights_digest(folder: Path, model_class: str) -> str:
    """SHA-256 of the float32 parameters of the model in ``folder`` (sorted names), as loaded
    by transformers' ``model_class``: equal digests, bit-identical weights."""
    import torch
    import transformers

    model = getattr(transformers, model_class).from_pretrained(folder)
    digest = hashlib.sha256()
    for name, param in sorted((canonical(n), p) for n, p in model.named_parameters()):
        digest.update(name.encode())
        digest.update(param.detach().to(torch.float32).numpy().tobytes())
    return digest.hexdigest()[:16]


def main() -> None:
    """``python released_models.py FOLDER``: build the folders the released runs load and print
    their digests (the tests record them)."""
    import sys

    root = Path(sys.argv[1])
    clip = build_clip(root / "clip")
    dino = build_dino(root / "dino")
    print(json.dumps({"clip": weights_digest(clip, "CLIPModel"),
                      "dino": weights_digest(dino, "Dinov2Model")}))


if __name__ == "__main__":
    main()

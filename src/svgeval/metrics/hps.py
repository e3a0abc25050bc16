"""HPS v2.0 and v2.1 (Human Preference Score) without open_clip: the checkpoints loaded into
transformers.

``HPS_v2.1_compressed.pt`` and ``HPS_v2_compressed.pt`` (v2.0; hub ``xswu/HPSv2``, hpsv2's
``hps_version_map``) are ``{"state_dict": ...}`` for the same open_clip ViT-H-14 CLIP model
(vision 1280 wide, 32 layers, 16 heads, patch 14, 224 px; text 1024 wide, 24 layers, 16 heads;
1024-d embeddings; GELU), fine-tuned on HPD v2 (v2.1 on more data). We map its keys onto a
transformers ``CLIPModel`` (:mod:`svgeval.metrics._clip_checkpoint`). The tokenizer is the
OpenAI CLIP BPE (``laion/CLIP-ViT-H-14-laion2B-s32B-b79K`` or any CLIP tokenizer directory).
The version is the preset's ``hps_version`` (``v2.1``; OmniSVG's ``compute_hps.py`` defaults to
``v2.0``) or ``version=``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from svgeval.metrics import _clip_checkpoint, _models, _pixels
from svgeval.metrics.model_settings import ModelSettings, chosen
from svgeval.metrics.presets import DEFAULT, MetricPreset, get_preset
from svgeval.metrics.registry import MetricInfo, describe_metric

describe_metric(
    MetricInfo(
        name="hps",
        summary="HPS v2 (v2.1 or v2.0 checkpoint): cosine of image and prompt embeddings of the "
        "HPS-tuned CLIP ViT-H-14",
        value_range="[-1, 1] (typically 0.2-0.35)",
        higher_is_better=True,
        source="Wu et al. 2023 (HPS v2); SVGenius compute_hpsv2.py and SGP-GenBench "
        "eval_hpsv2.py (v2.1), OmniSVG compute_hps.py (v2.0)",
    )
)

OPENAI_MEAN = (0.48145466, 0.4578275, 0.40821073)
OPENAI_STD = (0.26862954, 0.26130258, 0.27577711)
CHECKPOINTS = {"v2.0": "HPS_v2_compressed.pt", "v2.1": "HPS_v2.1_compressed.pt"}
"""The checkpoint file of each HPS version (hpsv2's ``hps_version_map``)."""


def _load(source: str, filename: str, tokenizer_source: str, device: str) -> tuple[Any, Any]:
    transformers = _models.require("transformers")
    model = _clip_checkpoint.load_model(_models.resolve_file(source, filename), hidden_act="gelu")
    tokenizer = transformers.AutoTokenizer.from_pretrained(tokenizer_source)
    return model.to(device), tokenizer


def preprocess(image: NDArray[np.generic], size: int) -> Any:
    """HPS' evaluation transform: to [0, 1], resize the longer side to ``size`` (bicubic,
    antialiased), pad to a square with 0, normalise with OpenAI CLIP statistics."""
    torch = _models.require("torch")
    rgb = _pixels.as_rgb_uint8(image)
    x = torch.from_numpy(rgb.astype(np.float32) / 255.0).permute(2, 0, 1)[None]
    h, w = x.shape[-2:]
    scale = size / float(max(h, w))
    if scale != 1.0:
        new = (round(h * scale), round(w * scale))
        x = torch.nn.functional.interpolate(x, size=new, mode="bicubic", align_corners=False,
                                            antialias=True)
        ph, pw = size - new[0], size - new[1]
        x = torch.nn.functional.pad(x, (pw // 2, pw - pw // 2, ph // 2, ph - ph // 2), value=0.0)
    mean = torch.tensor(OPENAI_MEAN).view(1, 3, 1, 1)
    std = torch.tensor(OPENAI_STD).view(1, 3, 1, 1)
    return (x - mean) / std


def hps(
    images: Sequence[NDArray[np.generic]],
    texts: Sequence[str],
    *,
    preset: str | MetricPreset = DEFAULT,
    model: str | None = None,
    model_path: str | None = None,
    tokenizer: str | None = None,
    version: str | None = None,
    device: str | None = None,
    batch_size: int = 16,
    model_settings: ModelSettings | None = None,
) -> list[float]:
    """HPS v2 of each (image, prompt): ``cos(E_img, E_txt)`` of the HPS-tuned CLIP.

    As ``hpsv2.score(image, prompt, hps_version=version)``: ``v2.1`` (the preset default; the
    released SVGenius and SGP-GenBench code) or ``v2.0`` (OmniSVG's ``compute_hps.py``).
    ``model``/``model_path``: the checkpoint file, a directory holding the version's file
    (:data:`CHECKPOINTS`), or the hub repo ``xswu/HPSv2``; ``tokenizer``: a CLIP tokenizer.
    OmniSVG runs it under CUDA autocast (``precision="amp"``); we use float32 unless
    ``model_settings.precision`` (``--precision``, ``SVGEVAL_PRECISION``) asks for bf16 or
    fp16. Range [-1, 1], typically 0.2-0.35; higher is better.
    """
    torch = _models.require("torch")
    if len(images) != len(texts):
        raise ValueError(f"{len(images)} images but {len(texts)} texts")
    if not images:
        return []
    settings = get_preset(preset)
    name = model or settings.hps_checkpoint
    tok = tokenizer or settings.hps_tokenizer
    wanted = version or settings.hps_version
    if wanted not in CHECKPOINTS:
        raise ValueError(f"HPS version must be one of {', '.join(CHECKPOINTS)}, not {wanted!r}")
    filename = CHECKPOINTS[wanted]
    dev, how = _models.pick_device(device), chosen(model_settings)
    net, tokenize = _models.load_first(
        "hps", f"the HPS {wanted} checkpoint ({filename}) and CLIP tokenizer {tok}", name,
        model_path, lambda src: _load(src, filename, tok, dev), (filename, tok, dev),
        settings=how)
    size = net.config.vision_config.image_size
    max_len = net.config.text_config.max_position_embeddings
    scores = []  # read back once at the end: each batch is prepared while the last computes
    for start in range(0, len(images), batch_size):
        chunk_images = images[start : start + batch_size]
        chunk_texts = list(texts[start : start + batch_size])
        pixels = _models.to_device(torch.cat([preprocess(i, size) for i in chunk_images]), dev)
        enc = _models.to_device(tokenize(chunk_texts, padding="max_length", truncation=True,
                                         max_length=max_len, return_tensors="pt"), dev)
        with _models.inference(dev, how.precision):
            img = net.get_image_features(pixel_values=pixels)
            txt = net.get_text_features(input_ids=enc["input_ids"])
        img = getattr(img, "pooler_output", img)
        txt = getattr(txt, "pooler_output", txt)
        img = torch.nn.functional.normalize(img.float(), dim=-1)
        txt = torch.nn.functional.normalize(txt.float(), dim=-1)
        scores.append((img * txt).sum(-1))
    return [float(v) for v in torch.cat(scores).tolist()]

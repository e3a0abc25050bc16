"""HPS v2.1 (Human Preference Score) without open_clip: its checkpoint loaded into transformers.

``HPS_v2.1_compressed.pt`` (hub ``xswu/HPSv2``) is ``{"state_dict": ...}`` for an open_clip
ViT-H-14 CLIP model (vision 1280 wide, 32 layers, 16 heads, patch 14, 224 px; text 1024 wide,
24 layers, 16 heads; 1024-d embeddings; GELU). We map its keys onto a transformers
``CLIPModel`` (fused ``in_proj`` split into q/k/v, ``c_fc``/``c_proj`` to ``fc1``/``fc2``,
``proj``/``text_projection`` transposed); text pooling takes the token with the highest id
(the end-of-text token), as open_clip does. The tokenizer is the OpenAI CLIP BPE
(``laion/CLIP-ViT-H-14-laion2B-s32B-b79K`` or any CLIP tokenizer directory).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from svgeval.metrics import _models
from svgeval.metrics.presets import DEFAULT, MetricPreset, get_preset
from svgeval.metrics.registry import MetricInfo, describe_metric

describe_metric(
    MetricInfo(
        name="hps",
        summary="HPS v2.1: cosine of image and prompt embeddings of the HPS-tuned CLIP ViT-H-14",
        value_range="[-1, 1] (typically 0.2-0.35)",
        higher_is_better=True,
        source="Wu et al. 2023 (HPS v2, v2.1 checkpoint); SVGenius released compute_hpsv2.py",
    )
)

OPENAI_MEAN = (0.48145466, 0.4578275, 0.40821073)
OPENAI_STD = (0.26862954, 0.26130258, 0.27577711)
CHECKPOINT = "HPS_v2.1_compressed.pt"
_BLOCK = re.compile(r"^(visual\.)?transformer\.resblocks\.(\d+)\.(.+)$")


def _heads(width: int, vision: bool) -> int:
    """open_clip ViT-H-14 uses 80-wide vision heads and 64-wide text heads."""
    if vision and width % 80 == 0 and width >= 1280:
        return width // 80
    return max(1, width // 64)


def open_clip_to_hf(state: dict[str, Any], vision_heads: int | None = None,
                    text_heads: int | None = None) -> tuple[Any, dict[str, Any]]:
    """A transformers ``CLIPConfig`` and state dict equivalent to an open_clip CLIP state dict."""
    transformers = _models.require("transformers")
    state = {k.removeprefix("module."): v for k, v in state.items()}
    v_width, _, patch, _ = state["visual.conv1.weight"].shape
    grid = round((state["visual.positional_embedding"].shape[0] - 1) ** 0.5)
    t_width = state["token_embedding.weight"].shape[1]
    layers = {"visual.": 0, "": 0}
    for key in state:
        m = _BLOCK.match(key)
        if m and m.group(3) == "ln_1.weight":
            layers[m.group(1) or ""] += 1
    config = transformers.CLIPConfig(
        projection_dim=state["text_projection"].shape[1],
        text_config={
            "hidden_size": t_width, "intermediate_size": state["transformer.resblocks.0.mlp.c_fc.weight"].shape[0],
            "num_hidden_layers": layers[""], "num_attention_heads": text_heads or _heads(t_width, False),
            "vocab_size": state["token_embedding.weight"].shape[0],
            "max_position_embeddings": state["positional_embedding"].shape[0],
            "hidden_act": "gelu", "eos_token_id": 2, "layer_norm_eps": 1e-5,
        },
        vision_config={
            "hidden_size": v_width,
            "intermediate_size": state["visual.transformer.resblocks.0.mlp.c_fc.weight"].shape[0],
            "num_hidden_layers": layers["visual."], "num_attention_heads": vision_heads or _heads(v_width, True),
            "image_size": grid * patch, "patch_size": patch, "hidden_act": "gelu", "layer_norm_eps": 1e-5,
        },
    )
    names = {"ln_1": "layer_norm1", "ln_2": "layer_norm2", "attn.out_proj": "self_attn.out_proj",
             "mlp.c_fc": "mlp.fc1", "mlp.c_proj": "mlp.fc2"}
    fixed = {
        "visual.class_embedding": "vision_model.embeddings.class_embedding",
        "visual.positional_embedding": "vision_model.embeddings.position_embedding.weight",
        "visual.conv1.weight": "vision_model.embeddings.patch_embedding.weight",
        "token_embedding.weight": "text_model.embeddings.token_embedding.weight",
        "positional_embedding": "text_model.embeddings.position_embedding.weight",
        "logit_scale": "logit_scale",
    }
    out: dict[str, Any] = {}
    for key, value in state.items():
        value = value.float()
        m = _BLOCK.match(key)
        if m:
            tower = "vision_model" if m.group(1) else "text_model"
            prefix, rest = f"{tower}.encoder.layers.{m.group(2)}.", m.group(3)
            if rest.startswith("attn.in_proj_"):
                kind = rest.rsplit("_", 1)[1]
                for part, chunk in zip("qkv", value.chunk(3, dim=0)):
                    out[f"{prefix}self_attn.{part}_proj.{kind}"] = chunk.clone()
                continue
            module, param = rest.rsplit(".", 1)
            if module in names:
                out[prefix + names[module] + "." + param] = value
            continue
        if key in fixed:
            out[fixed[key]] = value
        elif key.startswith(("visual.ln_pre.", "visual.ln_post.", "ln_final.")):
            head, param = key.rsplit(".", 1)
            target = {"visual.ln_pre": "vision_model.pre_layrnorm",
                      "visual.ln_post": "vision_model.post_layernorm",
                      "ln_final": "text_model.final_layer_norm"}[head]
            out[f"{target}.{param}"] = value
        elif key == "visual.proj":
            out["visual_projection.weight"] = value.t().contiguous()
        elif key == "text_projection":
            out["text_projection.weight"] = value.t().contiguous()
    return config, out


def _load(source: str, tokenizer_source: str, device: str) -> tuple[Any, Any]:
    torch = _models.require("torch")
    transformers = _models.require("transformers")
    path = Path(source)
    if not path.exists():
        from huggingface_hub import hf_hub_download

        path = Path(hf_hub_download(source, CHECKPOINT))
    if path.is_dir():
        path = path / CHECKPOINT
    checkpoint = torch.load(path, map_location="cpu", weights_only=True)
    config, state = open_clip_to_hf(checkpoint.get("state_dict", checkpoint))
    model = transformers.CLIPModel(config)
    missing, unexpected = model.load_state_dict(state, strict=False)
    missing = [k for k in missing if not k.endswith("position_ids")]
    if missing or unexpected:
        raise ValueError(f"checkpoint does not fit ViT-H-14: missing {missing[:3]}, "
                         f"unexpected {unexpected[:3]}")
    tokenizer = transformers.AutoTokenizer.from_pretrained(tokenizer_source)
    return model.to(device).eval(), tokenizer


def preprocess(image: NDArray[np.generic], size: int) -> Any:
    """HPS' evaluation transform: to [0, 1], resize the longer side to ``size`` (bicubic,
    antialiased), pad to a square with 0, normalise with OpenAI CLIP statistics."""
    torch = _models.require("torch")
    rgb = _models.as_rgb_uint8(image)
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
    device: str | None = None,
    batch_size: int = 16,
) -> list[float]:
    """HPS v2.1 of each (image, prompt): ``cos(E_img, E_txt)`` of the HPS-tuned CLIP.

    As ``hpsv2.score(image, prompt, hps_version="v2.1")``, which the released SVGenius code
    calls. ``model``/``model_path``: the checkpoint file, a directory holding
    ``HPS_v2.1_compressed.pt``, or the hub repo ``xswu/HPSv2``; ``tokenizer``: a CLIP
    tokenizer. Range [-1, 1], typically 0.2-0.35; higher is better.
    """
    torch = _models.require("torch")
    if len(images) != len(texts):
        raise ValueError(f"{len(images)} images but {len(texts)} texts")
    if not images:
        return []
    settings = get_preset(preset)
    name = model or settings.hps_checkpoint
    tok = tokenizer or settings.hps_tokenizer
    dev = _models.pick_device(device)
    net, tokenize = _models.load_first(
        "hps", f"the HPS v2.1 checkpoint ({CHECKPOINT}) and CLIP tokenizer {tok}", name,
        model_path, lambda src: _load(src, tok, dev), (tok, dev))
    size = net.config.vision_config.image_size
    max_len = net.config.text_config.max_position_embeddings
    scores: list[float] = []
    for start in range(0, len(images), batch_size):
        chunk_images = images[start : start + batch_size]
        chunk_texts = list(texts[start : start + batch_size])
        pixels = torch.cat([preprocess(i, size) for i in chunk_images]).to(dev)
        enc = tokenize(chunk_texts, padding="max_length", truncation=True, max_length=max_len,
                       return_tensors="pt").to(dev)
        with _models.inference(dev):
            img = net.get_image_features(pixel_values=pixels)
            txt = net.get_text_features(input_ids=enc["input_ids"])
        img = getattr(img, "pooler_output", img)
        txt = getattr(txt, "pooler_output", txt)
        img = torch.nn.functional.normalize(img.float(), dim=-1)
        txt = torch.nn.functional.normalize(txt.float(), dim=-1)
        scores.extend(float(v) for v in (img * txt).sum(-1).tolist())
    return scores

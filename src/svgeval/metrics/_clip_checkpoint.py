"""OpenAI-layout CLIP checkpoints (OpenAI ``clip``, open_clip, HPS, Long-CLIP, ViCLIP's towers)
mapped onto transformers' ``CLIPModel``.

The layout: ``visual.conv1.weight``, ``visual.class_embedding``, ``visual.positional_embedding``,
``visual.ln_pre``, ``visual.transformer.resblocks.<i>.{ln_1, attn.in_proj_*, attn.out_proj,
ln_2, mlp.c_fc, mlp.c_proj}``, ``visual.ln_post``, ``visual.proj`` (width x embed) and the same
blocks without ``visual.`` for the text tower, with ``token_embedding``, ``positional_embedding``,
``ln_final``, ``text_projection`` and ``logit_scale``. The fused ``in_proj`` is split into
q/k/v, ``c_fc``/``c_proj`` become ``fc1``/``fc2`` and the projections are transposed. Text
pooling takes the token with the highest id (the end-of-text token), as OpenAI's code does
(transformers does the same when ``eos_token_id`` is 2).

Long-CLIP (Zhang et al. 2024, ``model/model_longclip.py``) keeps two 248-row text position
tables, ``positional_embedding`` used for the first 20 positions and ``positional_embedding_res``
for the others (its ``mask1``/``mask2``); their per-position sum is one 248-row table, which is
what :func:`to_transformers` loads.
"""

from __future__ import annotations

import re
from typing import Any

from svgeval.metrics import _models

_BLOCK = re.compile(r"^(.*)transformer\.resblocks\.(\d+)\.(.+)$")
_NAMES = {"ln_1": "layer_norm1", "ln_2": "layer_norm2", "attn.out_proj": "self_attn.out_proj",
          "mlp.c_fc": "mlp.fc1", "mlp.c_proj": "mlp.fc2"}
LONGCLIP_KEEP = 20
"""Long-CLIP's first positions that keep CLIP's own position embeddings."""


def heads(width: int, vision: bool) -> int:
    """Attention heads of a tower ``width`` wide: 64-wide heads, except open_clip's ViT-H-14 and
    larger vision towers (80-wide)."""
    if vision and width % 80 == 0 and width >= 1280:
        return width // 80
    return max(1, width // 64)


def block_weights(state: dict[str, Any], source: str, target: str) -> dict[str, Any]:
    """The transformer blocks under ``source`` (e.g. ``visual.``) as transformers' encoder layers
    under ``target`` (e.g. ``vision_model.encoder.``), in float32."""
    out: dict[str, Any] = {}
    for key, value in state.items():
        m = _BLOCK.match(key)
        if not m or m.group(1) != source:
            continue
        prefix, rest = f"{target}layers.{m.group(2)}.", m.group(3)
        if rest.startswith("attn.in_proj_"):
            kind = rest.rsplit("_", 1)[1]
            for part, chunk in zip("qkv", value.float().chunk(3, dim=0)):
                out[f"{prefix}self_attn.{part}_proj.{kind}"] = chunk.clone()
            continue
        module, param = rest.rsplit(".", 1)
        if module in _NAMES:
            out[prefix + _NAMES[module] + "." + param] = value.float()
    return out


def count_blocks(state: dict[str, Any], source: str) -> int:
    """How many transformer blocks ``state`` holds under ``source``."""
    return sum(1 for key in state if (m := _BLOCK.match(key)) and m.group(1) == source
               and m.group(3) == "ln_1.weight")


def text_positions(state: dict[str, Any]) -> Any:
    """The text position table: ``positional_embedding``, or Long-CLIP's two tables joined."""
    table = state["positional_embedding"].float()
    if "positional_embedding_res" in state:
        res = state["positional_embedding_res"].float()
        table = table.clone()
        table[LONGCLIP_KEEP:] = res[LONGCLIP_KEEP:]
    return table


def to_transformers(state: dict[str, Any], hidden_act: str,
                    vision_heads: int | None = None,
                    text_heads: int | None = None) -> tuple[Any, dict[str, Any]]:
    """A transformers ``CLIPConfig`` and state dict equivalent to an OpenAI-layout CLIP state
    dict; ``hidden_act``: ``quick_gelu`` (OpenAI CLIP, Long-CLIP) or ``gelu`` (open_clip's
    ViT-H-14, HPS)."""
    transformers = _models.require("transformers")
    state = {k.removeprefix("module."): v for k, v in state.items()}
    v_width, _, patch, _ = state["visual.conv1.weight"].shape
    grid = round((state["visual.positional_embedding"].shape[0] - 1) ** 0.5)
    t_width = state["token_embedding.weight"].shape[1]
    positions = text_positions(state)
    config = transformers.CLIPConfig(
        projection_dim=state["text_projection"].shape[1],
        text_config={
            "hidden_size": t_width, "intermediate_size": state["transformer.resblocks.0.mlp.c_fc.weight"].shape[0],
            "num_hidden_layers": count_blocks(state, ""),
            "num_attention_heads": text_heads or heads(t_width, False),
            "vocab_size": state["token_embedding.weight"].shape[0],
            "max_position_embeddings": positions.shape[0],
            "hidden_act": hidden_act, "eos_token_id": 2, "layer_norm_eps": 1e-5,
        },
        vision_config={
            "hidden_size": v_width,
            "intermediate_size": state["visual.transformer.resblocks.0.mlp.c_fc.weight"].shape[0],
            "num_hidden_layers": count_blocks(state, "visual."),
            "num_attention_heads": vision_heads or heads(v_width, True),
            "image_size": grid * patch, "patch_size": patch, "hidden_act": hidden_act,
            "layer_norm_eps": 1e-5,
        },
    )
    out = {**block_weights(state, "visual.", "vision_model.encoder."),
           **block_weights(state, "", "text_model.encoder.")}
    fixed = {
        "visual.class_embedding": "vision_model.embeddings.class_embedding",
        "visual.positional_embedding": "vision_model.embeddings.position_embedding.weight",
        "visual.conv1.weight": "vision_model.embeddings.patch_embedding.weight",
        "token_embedding.weight": "text_model.embeddings.token_embedding.weight",
        "logit_scale": "logit_scale",
        "visual.ln_pre.weight": "vision_model.pre_layrnorm.weight",
        "visual.ln_pre.bias": "vision_model.pre_layrnorm.bias",
        "visual.ln_post.weight": "vision_model.post_layernorm.weight",
        "visual.ln_post.bias": "vision_model.post_layernorm.bias",
        "ln_final.weight": "text_model.final_layer_norm.weight",
        "ln_final.bias": "text_model.final_layer_norm.bias",
    }
    for key, target in fixed.items():
        out[target] = state[key].float()
    out["text_model.embeddings.position_embedding.weight"] = positions
    out["visual_projection.weight"] = state["visual.proj"].float().t().contiguous()
    out["text_projection.weight"] = state["text_projection"].float().t().contiguous()
    return config, out


def load_model(path: Any, hidden_act: str) -> Any:
    """A transformers ``CLIPModel`` (eval, float32, CPU) from an OpenAI-layout checkpoint file
    (a state dict, or ``{"state_dict": ...}`` as HPS stores it). ValueError when its keys do
    not make a CLIP."""
    torch = _models.require("torch")
    transformers = _models.require("transformers")
    checkpoint = torch.load(path, map_location="cpu", weights_only=True)
    if not isinstance(checkpoint, dict):
        raise TypeError(f"{path} holds a {type(checkpoint).__name__}, not a state dict (a "
                         "TorchScript archive of OpenAI's clip is not read)")
    config, state = to_transformers(checkpoint.get("state_dict", checkpoint), hidden_act)
    model = transformers.CLIPModel(config)
    missing, unexpected = model.load_state_dict(state, strict=False)
    missing = [k for k in missing if not k.endswith("position_ids")]
    if missing or unexpected:
        raise ValueError(f"{path} is not an OpenAI-layout CLIP checkpoint: missing {missing[:3]}, "
                         f"unexpected {unexpected[:3]}")
    return model.eval()

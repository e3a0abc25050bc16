"""DINO and CLIP score of the released SVGEditBench V2 scorer on the tiny weights.

Runs ``src/9_calculate_metrics.py`` of mti-lab/SVGEditBenchV2 at ``7e7879a7`` unmodified, as
``svgeditbench_v2.released_scores`` does (``runpy``; the answers through ``gpt_seq.py``'s
``parse_response``), here with its model metrics: ``evaluation/dinov2.py`` (cosine of the CLS
features of ``torch.hub.load('facebookresearch/dinov2', 'dinov2_vitg14')`` on [0, 1] pixels of
the 224 px renders) and ``evaluation/clipscore.py`` (torchmetrics' ``CLIPScore`` of
``openai/clip-vit-base-patch32``, forward: ``max(100 cos, 0)``, of the answer's render and the
target emoji's name, ``emojinames.get_name`` of the ``after`` file in each triplet's
``metadata.json``). Inputs: the 16 Twemoji targets of ``support.released_answers.twemoji_answered``
(target ``i`` answered in kind ``KINDS[i]``). Prints ``RELEASED`` of
``tests/tasks/test_svgeditbench_v2_released_models.py``: (dino, clip) per answer the release
scores.

Weights (``model_harness.prepare``): the tiny ViT-B/32-shaped CLIP of
``support.released_models.build_b32_and_dino`` behind the hub name; ``torch.hub.load`` answers
with the dinov2 hub code's ``DinoVisionTransformer`` (facebookresearch/dinov2 ``b8931f7b``,
fetched as the second release) built with ``dinov2_vitg14``'s settings (patch 14, 518 px
positions, layer scale, ``MemEffAttention``, interpolation offset 0.1, no antialias) at the tiny
DINOv2's size, holding its weights (:func:`hub_state`); its feed-forward is the plain MLP of that
DINOv2, not vitg14's SwiGLU. ``emojinames`` reads ``emoji-zwj-sequences.txt`` (Unicode's, not
in the release) from the working folder: an empty one is written, the 16 targets being single
code points, whose names come from ``unicodedata``.

Runs under transformers 4.57.1, in svgeval's test environment with these packages first on the
import path, and the upstream packages of ``.venv/ref-packages`` (torchvision;
``checkout.reference_packages``)::

    pip install --target .venv/tf457 --no-deps transformers==4.57.1 tokenizers==0.22.1 \\
        huggingface_hub==0.36.0 torchmetrics==1.8.2 lightning-utilities==0.15.2 \\
        git+https://github.com/openai/CLIP@d05afc436d78f1c48dc0dbf8e5980a9d471f35f6
    PYTHONPATH=.venv/tf457:tests:src .venv/bin/python -m upstream.svgeditbench_v2_models \\
        [--svgeditbench-source GIT_REPO | --svgeditbench-checkout DIR] \\
        [--dinov2-source GIT_REPO | --dinov2-checkout DIR]

Stand-ins (``checkout.stand_in_modules``): those of ``svgeditbench_v2.py`` but the two model
metrics (``func_timeout`` a plain call, ``openai``, ``dotenv``).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from support.released_answers import TWEMOJI, twemoji_answered

from upstream import checkout, model_harness, svgeditbench_v2

DINOV2 = checkout.Release("facebookresearch/dinov2", "b8931f7bf91576930313be2c6d6af376033b35f0")
HUB_NAMES = {"openai/clip-vit-base-patch32": "clip"}
_HUB_KEYS = (  # transformers' Dinov2Model (5.x names) -> the hub's DinoVisionTransformer
    ("embeddings.patch_embeddings.projection.", "patch_embed.proj."),
    ("embeddings.position_embeddings", "pos_embed"), ("embeddings.cls_token", "cls_token"),
    ("embeddings.mask_token", "mask_token"), ("encoder.layer.", "blocks."),
    (".attention.o_proj.", ".attn.proj."), (".layer_scale1.lambda1", ".ls1.gamma"),
    (".layer_scale2.lambda1", ".ls2.gamma"), ("layernorm.", "norm."),
)


def hub_state(folder: Path) -> dict[str, Any]:
    """The weights of the transformers DINOv2 in ``folder`` in the hub code's names: q, k and
    v stacked into ``attn.qkv``, the mask token (1, D)."""
    import torch
    from support.released_models import canonical
    from transformers import Dinov2Model

    state = {canonical(k): v for k, v in Dinov2Model.from_pretrained(folder).state_dict().items()}
    out: dict[str, Any] = {}
    for key, value in state.items():
        if key.endswith(("q_proj.weight", "q_proj.bias")):
            kind = key.rsplit(".", 1)[1]
            stem = key[: -len(f"attention.q_proj.{kind}")]
            value = torch.cat([state[f"{stem}attention.{p}_proj.{kind}"] for p in "qkv"])
            key = f"{stem}attn.qkv.{kind}"
        elif ".k_proj." in key or ".v_proj." in key:
            continue
        for old, new in _HUB_KEYS:
            key = key.replace(old, new)
        out[key] = value
    return out


def tiny_hub_dinov2(dinov2_root: Path, folder: Path) -> Any:
    """``dinov2_vitg14``'s ``DinoVisionTransformer`` at the tiny DINOv2's size, its weights."""
    from functools import partial

    sys.path.insert(0, str(dinov2_root))
    from dinov2.layers import MemEffAttention
    from dinov2.models.vision_transformer import Block, DinoVisionTransformer

    model = DinoVisionTransformer(
        img_size=518, patch_size=14, init_values=1.0, ffn_layer="mlp", block_chunks=0,
        num_register_tokens=0, interpolate_antialias=False, interpolate_offset=0.1,
        embed_dim=64, depth=2, num_heads=2, mlp_ratio=2,
        block_fn=partial(Block, attn_class=MemEffAttention))
    model.load_state_dict(hub_state(folder), strict=True)
    return model


def main() -> None:
    arguments = checkout.parser(__doc__.splitlines()[0], "svgeditbench", "dinov2").parse_args()
    src = checkout.released_code(svgeditbench_v2.RELEASE, arguments, "svgeditbench") / "src"
    dinov2_root = checkout.released_code(DINOV2, arguments, "dinov2")
    reference = checkout.reference_packages()
    with tempfile.TemporaryDirectory() as scratch:
        folders = model_harness.prepare(Path(scratch) / "weights", HUB_NAMES, reference)
        import torch

        model = tiny_hub_dinov2(dinov2_root, folders["dino"])
        hub_load = torch.hub.load
        torch.hub.load = lambda repo, name, *args, **kwargs: (  # type: ignore[assignment]
            model if (repo, name) == ("facebookresearch/dinov2", "dinov2_vitg14")
            else hub_load(repo, name, *args, **kwargs))
        checkout.stand_in_modules({
            "func_timeout": {"func_timeout": svgeditbench_v2._call,
                             "FunctionTimedOut": svgeditbench_v2._TimedOut},
            "openai": {"AsyncOpenAI": None},
            "dotenv": {"load_dotenv": lambda: None},
        })
        sys.path.insert(0, str(src))
        work = Path(scratch) / "twemoji"
        work.mkdir()
        (work / "emoji-zwj-sequences.txt").write_text("", encoding="utf-8")
        answers = {triplet: (target, answer)
                   for triplet, (_, target, answer) in twemoji_answered().items()}
        after = {f"{i:04d}": f"twemoji_{code}.svg" for i, code in enumerate(TWEMOJI)}
        scores = svgeditbench_v2.released_scores(src, work, answers, ("dino", "clipscore"), after)
    print(json.dumps({"RELEASED": {triplet: value for triplet, value in scores.items()
                                   if value != (None, None)}}, indent=1))


if __name__ == "__main__":
    main()

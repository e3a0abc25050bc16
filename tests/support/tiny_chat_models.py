"""Tiny randomly initialised chat models, built here and saved to a folder (nothing is
downloaded): a Llama causal LM with a byte-level BPE tokenizer trained on a few SVG strings and
a chat template, and a LLaVA vision-language model (a CLIP vision tower on the same tokenizer)
with its processor. Their weights are drawn with a wide ``initializer_range`` so that the next
token's logits are far apart: greedy answers do not hinge on rounding."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

CHAT_TEMPLATE = (
    "{% for message in messages %}<|{{ message['role'] }}|>"
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}{% for part in message['content'] %}"
    "{% if part['type'] == 'text' %}{{ part['text'] }}{% else %}<image>{% endif %}"
    "{% endfor %}{% endif %}<|end|>{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)
"""A chat template in the style of the real ones: role markers, an end token per message, and
an ``<image>`` placeholder where each picture goes."""

SPECIAL_TOKENS = ["<pad>", "<|end|>", "<|user|>", "<|assistant|>", "<|system|>", "<image>"]
PAD_ID, END_ID = 0, 1

TRAINING_TEXT = [
    ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 36 36"><path fill="#DD2E44" '
     'd="M18 0C8 0 0 8 0 18s8 18 18 18 18-8 18-18S28 0 18 0z"/></svg>'),
    ('<svg width="72" height="72"><circle cx="36" cy="36" r="30" fill="red"/>'
     '<rect x="1" y="2" width="3" height="4" stroke="blue"/></svg>'),
    "Change the color of the icon. Answer with the SVG code in a ```svg block.",
]


def save_chat_tokenizer(folder: Path) -> Any:
    """A byte-level BPE tokenizer (any text encodes) of about 400 tokens, with the chat
    template; saved to ``folder`` and returned."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=SPECIAL_TOKENS,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tokenizer.train_from_iterator(TRAINING_TEXT * 5, trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, pad_token="<pad>",
                                   eos_token="<|end|>", chat_template=CHAT_TEMPLATE)
    fast.save_pretrained(folder)
    return fast


def llama_text_config(vocab_size: int, hidden_size: int = 32, heads: int = 4) -> dict[str, Any]:
    """A two-layer Llama of ``hidden_size``, with a 4096-token context."""
    return {"model_type": "llama", "vocab_size": vocab_size, "hidden_size": hidden_size,
            "intermediate_size": 2 * hidden_size, "num_hidden_layers": 2,
            "num_attention_heads": heads, "num_key_value_heads": max(1, heads // 2),
            "max_position_embeddings": 4096, "pad_token_id": PAD_ID, "eos_token_id": END_ID,
            "bos_token_id": None, "initializer_range": 0.5, "tie_word_embeddings": False}


def build_chat_llm(folder: Path, seed: int = 0, **config: Any) -> Path:
    """A tiny Llama chat model with its tokenizer in ``folder``."""
    import torch
    import transformers

    tokenizer = save_chat_tokenizer(folder)
    torch.manual_seed(seed)
    settings = {**llama_text_config(len(tokenizer)), **config}
    settings.pop("model_type")
    transformers.LlamaForCausalLM(transformers.LlamaConfig(**settings)).save_pretrained(folder)
    return folder


def build_chat_vlm(folder: Path, seed: int = 0) -> Path:
    """A tiny LLaVA (CLIP vision tower, 28 px pictures in 2 x 2 patches of 14 px, a Llama
    language model) with its processor in ``folder``."""
    import torch
    import transformers
    from transformers.models.clip.image_processing_pil_clip import CLIPImageProcessorPil

    tokenizer = save_chat_tokenizer(folder)
    pictures = CLIPImageProcessorPil(size={"shortest_edge": 28},
                                     crop_size={"height": 28, "width": 28})
    transformers.LlavaProcessor(
        image_processor=pictures, tokenizer=tokenizer, patch_size=14,
        vision_feature_select_strategy="default", num_additional_image_tokens=1,
        chat_template=CHAT_TEMPLATE,
    ).save_pretrained(folder)
    torch.manual_seed(seed)
    config = transformers.LlavaConfig(
        text_config=llama_text_config(len(tokenizer)),
        vision_config={"model_type": "clip_vision_model", "hidden_size": 32,
                       "intermediate_size": 64, "num_hidden_layers": 2,
                       "num_attention_heads": 2, "image_size": 28, "patch_size": 14},
        image_token_index=tokenizer.convert_tokens_to_ids("<image>"),
        vision_feature_select_strategy="default", vision_feature_layer=-1,
    )
    transformers.LlavaForConditionalGeneration(config).save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def tiny_chat_llm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of a tiny Llama chat model."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    return build_chat_llm(tmp_path_factory.mktemp("tiny_chat_llm"))


@pytest.fixture(scope="session")
def tiny_chat_vlm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of a tiny LLaVA chat model."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    return build_chat_vlm(tmp_path_factory.mktemp("tiny_chat_vlm"))

"""``vllm:``: one line without vLLM or a GPU; where both are present, greedy answers equal
``hf:``'s on the same checkpoint and sampled ones come back on a rerun."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest
from support.tiny_chat_models import build_chat_llm

from svgeval.models import Generation, GenerationRequest, Model, ModelUnavailable, load_model

from .local_helpers import answer_all, chat

torch = pytest.importorskip("torch")
HAS_VLLM = importlib.util.find_spec("vllm") is not None
HAS_GPU = torch.cuda.is_available()

PROMPTS = [
    "Change the color of the icon to red.",
    '<svg width="72" height="72"><circle cx="36" cy="36" r="30" fill="red"/></svg>',
    "Answer with the SVG code in a ```svg block. " * 4,
]


def answers(model: Model, **fields: Any) -> list[Generation]:
    return answer_all(model, [GenerationRequest(f"s{i}", chat(text), **fields)
                              for i, text in enumerate(PROMPTS)])


@pytest.mark.skipif(HAS_VLLM and HAS_GPU, reason="vLLM and a GPU are both here")
def test_without_vllm_or_a_gpu_one_line_says_so(tiny_chat_llm: Path) -> None:
    with pytest.raises(ModelUnavailable) as raised:
        load_model(f"vllm:{tiny_chat_llm}")
    message = str(raised.value)
    expected = "vLLM needs a CUDA GPU and none is visible" if HAS_VLLM else (
        "needs vLLM, which is not installed: pip install 'svgeval[vllm]'")
    assert expected in message and "\n" not in message
    assert HAS_VLLM or "vllm" not in sys.modules


def test_vllm_options_are_typed_before_anything_loads(tiny_chat_llm: Path) -> None:
    for args, message in [({"gpu_memory_utilization": "1.5"}, "at most 1"),
                          ({"tensor_parallel_size": "0"}, "tensor_parallel_size=0: must be more")]:
        with pytest.raises(ValueError, match=message):
            load_model(f"vllm:{tiny_chat_llm}", model_args=args)


@pytest.mark.skipif(not (HAS_VLLM and HAS_GPU), reason="needs vLLM and a CUDA GPU")
def test_vllm_greedy_answers_equal_hf_on_the_same_checkpoint(tmp_path: Path) -> None:
    # heads of 64 dimensions: a size vLLM's attention kernels take
    folder = build_chat_llm(tmp_path / "model", hidden_size=128, intermediate_size=256,
                            num_attention_heads=2, num_key_value_heads=1)
    common = {"dtype": "bfloat16"}
    vllm = load_model(f"vllm:{folder}", model_args={
        **common, "gpu_memory_utilization": "0.3", "max_model_len": "1024"})
    greedy = answers(vllm, max_tokens=8)
    sampled = answers(vllm, max_tokens=8, temperature=1.0, seed=5)
    again = answers(vllm, max_tokens=8, temperature=1.0, seed=5)
    hf = load_model(f"hf:{folder}", model_args={**common, "device": "cuda"})
    assert [a.text for a in greedy] == [a.text for a in answers(hf, max_tokens=8)]
    assert [a.text for a in sampled] == [a.text for a in again]
    for answer in greedy:
        assert answer.usage["prompt_tokens"] > 5 and 1 <= answer.usage["completion_tokens"] <= 8
        assert answer.finish_reason in ("stop", "length")

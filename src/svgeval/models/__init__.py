"""Model backends, chosen by a spec string such as ``openai:gpt-4o`` or ``identity``.

:func:`load_model` turns a spec into a :class:`Model`; :data:`MODEL_KINDS` describes the kinds
for ``svgeval list models``. Specs are ``<kind>`` or ``<kind>:<argument>``, split at the first
colon, so model names may contain colons (``openai-compatible:llama3.1:8b``).
"""

from __future__ import annotations

import os

from svgeval.models.base import (
    Generation,
    GenerationRequest,
    Model,
    ModelError,
    ModelUnavailable,
    RetryEvent,
)
from svgeval.models.baselines import IdentityModel, OracleModel
from svgeval.models.openai_compat import OpenAICompatibleModel
from svgeval.models.replay import ReplayModel
from svgeval.models.retry import RetryPolicy

OPENAI_BASE_URL = "https://api.openai.com/v1"
DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"

MODEL_KINDS: dict[str, str] = {
    "identity": "answers with the sample's input SVG unchanged (the 'no edit' baseline)",
    "oracle": "answers with the sample's reference response (a check that scoring works)",
    "openai": "the OpenAI API; needs an API key in $OPENAI_API_KEY",
    "openai-compatible": "any Chat Completions server at --base-url (vLLM, Ollama, OpenRouter...);"
    " a key only from the variable named by --api-key-env",
    "replay": "answers from a JSONL file of {\"id\": ..., \"response\": ...} lines",
}
"""Every model kind with a one-line description."""

_ARGUMENTS = {"openai": "<model>", "openai-compatible": "<model>", "replay": "<file.jsonl>"}
"""The argument each kind takes after the colon; kinds not listed take none."""


def model_spec_forms() -> list[str]:
    """How each kind is written, e.g. ``openai:<model>``."""
    return [f"{kind}:{_ARGUMENTS[kind]}" if kind in _ARGUMENTS else kind for kind in MODEL_KINDS]


def load_model(
    spec: str,
    *,
    base_url: str | None = None,
    api_key_env: str | None = None,
    concurrency: int = 8,
    timeout_s: float = 120.0,
    first_token_timeout_s: float | None = None,
    stream: bool = True,
    max_retries: int = 6,
) -> Model:
    """The backend a spec names.

    ``timeout_s`` is the longest silence of a streamed answer (with ``stream=False``: the
    longest wait for the whole answer), ``first_token_timeout_s`` the longest wait for its first
    token, queueing included (None: 10 x ``timeout_s``); see
    :mod:`svgeval.models.openai_compat`. They and ``concurrency`` only apply to HTTP backends.

    Raises ValueError for a spec or option that makes no sense (unknown kind, missing
    argument, ``base_url`` for a kind that sends no requests), and ModelUnavailable when the
    backend cannot be set up (no API key for ``openai``, unreadable replay file).
    """
    kind, has_argument, argument = spec.partition(":")
    if kind not in MODEL_KINDS:
        raise ValueError(
            f"unknown model {spec!r}; known models: {', '.join(model_spec_forms())}"
        )
    if kind in _ARGUMENTS and not argument:
        raise ValueError(f"model {spec!r} needs an argument: {kind}:{_ARGUMENTS[kind]}")
    if kind not in _ARGUMENTS and has_argument:
        raise ValueError(f"model {spec!r} takes no argument: write {kind!r}")
    if kind not in ("openai", "openai-compatible"):
        if base_url is not None or api_key_env is not None:
            raise ValueError(f"--base-url and --api-key-env do not apply to {kind!r}")
        if kind == "identity":
            return IdentityModel()
        if kind == "oracle":
            return OracleModel()
        return ReplayModel(argument, spec=spec)
    if kind == "openai-compatible" and base_url is None:
        raise ValueError(f"{spec} needs --base-url, e.g. http://localhost:8000/v1")
    url = _checked_base_url(base_url if base_url is not None else OPENAI_BASE_URL)
    key_env: str | None
    if api_key_env is not None:
        key_env = api_key_env
    elif kind == "openai":
        key_env = DEFAULT_API_KEY_ENV
    else:  # a key only from a variable the user names: $OPENAI_API_KEY never goes to --base-url
        key_env = None
    api_key = (os.environ.get(key_env) or None) if key_env is not None else None
    if key_env is not None and api_key is None:
        raise ModelUnavailable(f"{spec} needs an API key: set the {key_env} environment variable")
    return OpenAICompatibleModel(
        spec,
        model=argument,
        base_url=url,
        api_key=api_key,
        api_key_env=key_env,
        max_tokens_field="max_completion_tokens" if kind == "openai" else "max_tokens",
        concurrency=concurrency,
        timeout_s=timeout_s,
        first_token_timeout_s=first_token_timeout_s,
        stream=stream,
        retry=RetryPolicy(max_retries=max_retries),
    )


def _checked_base_url(base_url: str) -> str:
    """``base_url`` without a trailing slash or ``/chat/completions``; ValueError if not http."""
    url = base_url.strip().rstrip("/").removesuffix("/chat/completions")
    if not url.startswith(("http://", "https://")):
        raise ValueError(f"base URL must start with http:// or https://, got {base_url!r}")
    return url


__all__ = [
    "MODEL_KINDS",
    "Generation",
    "GenerationRequest",
    "Model",
    "ModelError",
    "ModelUnavailable",
    "OpenAICompatibleModel",
    "ReplayModel",
    "RetryEvent",
    "RetryPolicy",
    "load_model",
    "model_spec_forms",
]

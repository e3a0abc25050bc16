"""Model backends, chosen by a spec string such as ``openai:gpt-4o`` or ``identity``.

:func:`load_model` turns a spec into a :class:`Model` through the kinds registered in
:data:`MODELS`. Specs are ``<kind>`` or ``<kind>:<argument>``, split at the first colon, so model
names may contain colons (``openai-compatible:llama3.1:8b``). The HTTP backend,
:class:`svgeval.models.openai_compat.OpenAICompatibleModel`, is imported from its module (it
loads httpx, which the offline kinds do not need).
"""

from __future__ import annotations

from collections.abc import Mapping

from svgeval.models.base import (
    AnswerMissing,
    Generation,
    GenerationRequest,
    InvalidModelSetting,
    Model,
    ModelError,
    ModelEvents,
    ModelUnavailable,
    PendingModel,
    RetryEvent,
)
from svgeval.models.registry import MODELS, EndpointOptions, ModelKind, model_kind
from svgeval.models.replay import ReplayModel
from svgeval.models.retry import RetryPolicy
from svgeval.run_request import DEFAULTS


def model_spec_forms() -> list[str]:
    """How each kind is written, e.g. ``openai:<model>``."""
    return [kind.form for kind in MODELS.all().values()]


def load_model(
    spec: str,
    *,
    base_url: str | None = None,
    api_key_env: str | None = None,
    concurrency: int = DEFAULTS.concurrency,
    timeout_s: float = DEFAULTS.timeout,
    first_token_timeout_s: float | None = None,
    stream: bool = DEFAULTS.stream,
    max_retries: int = 6,
    accepts_images: bool = True,
    model_args: Mapping[str, str] | None = None,
    defer_weights: bool = False,
    events: ModelEvents | None = None,
) -> Model:
    """The backend a spec names.

    ``timeout_s`` is the longest silence of a streamed answer (with ``stream=False``: the
    longest wait for the whole answer), ``first_token_timeout_s`` the longest wait for its first
    token, queueing included (None: 10 x ``timeout_s``); see
    :mod:`svgeval.models.openai_compat`. They and ``concurrency`` only apply to HTTP backends.
    ``accepts_images=False`` declares an HTTP backend text-only (see :attr:`Model.accepts_images`);
    the offline kinds take any message. ``model_args`` are the ``--model-arg KEY=VALUE`` pairs of
    a kind with options (``hf``, ``vllm``), checked against its options dataclass. ``events``
    hears of an HTTP backend's retries and notices as they happen.

    A kind that runs a checkpoint in this process (``hf``, ``vllm``) checks its options and
    where the checkpoint is (a folder, or a hub id that the hub or the local cache can give:
    :func:`~svgeval.models.in_process.checkpoint_source`) at once, and loads the weights after:
    now, or with ``defer_weights`` when :meth:`Model.load` is called on the
    :class:`PendingModel` returned (:meth:`svgeval.runner.Runner.prepare` calls it once the
    run's cheap checks have passed).

    Raises ValueError for a spec or option that makes no sense (unknown kind, missing
    argument, ``base_url`` for a kind that sends no requests, a ``--model-arg`` it does not
    take), and ModelUnavailable when the backend cannot be set up (no API key for ``openai``,
    unreadable replay file, a checkpoint that does not load).
    """
    name, has_argument, argument = spec.partition(":")
    kinds = MODELS.all()
    if name not in kinds:
        raise InvalidModelSetting(
            f"unknown model {spec!r}; known models: {', '.join(model_spec_forms())}")
    kind = kinds[name]
    if kind.argument and not argument:
        raise InvalidModelSetting(f"model {spec!r} needs an argument: {kind.form}")
    if not kind.argument and has_argument:
        raise InvalidModelSetting(f"model {spec!r} takes no argument: write {name!r}")
    if not kind.sends_requests and (base_url is not None or api_key_env is not None):
        raise InvalidModelSetting(f"--base-url and --api-key-env do not apply to {name!r}")
    if not kind.sends_requests and not accepts_images:
        raise InvalidModelSetting(f"{name!r} takes any message; declare only HTTP models text-only")
    if model_args and kind.options is None:
        raise InvalidModelSetting(f"--model-arg does not apply to {name!r}")
    options = EndpointOptions(
        base_url, api_key_env, concurrency, timeout_s, max_retries, first_token_timeout_s, stream,
        dict(model_args or {}), events or ModelEvents(),
    )
    model = kind.create(spec, argument, options)
    if not defer_weights:
        model = model.load()
    model.accepts_images = model.accepts_images and accepts_images
    return model


__all__ = [
    "MODELS",
    "AnswerMissing",
    "EndpointOptions",
    "Generation",
    "GenerationRequest",
    "Model",
    "ModelError",
    "ModelEvents",
    "ModelKind",
    "ModelUnavailable",
    "PendingModel",
    "ReplayModel",
    "RetryEvent",
    "RetryPolicy",
    "load_model",
    "model_kind",
    "model_spec_forms",
]

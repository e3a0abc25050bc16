"""The model kinds that ship with svgeval: offline baselines, replay files, OpenAI-style HTTP."""

from __future__ import annotations

import os

from svgeval.models.base import InvalidModelSetting, Model, ModelUnavailable
from svgeval.models.baselines import EmptyModel, HostileModel, IdentityModel, OracleModel
from svgeval.models.endpoint import parse_endpoint
from svgeval.models.registry import EndpointOptions, model_kind
from svgeval.models.replay import ReplayModel
from svgeval.models.retry import RetryPolicy

OPENAI_BASE_URL = "https://api.openai.com/v1"
OPENAI_HOST = "api.openai.com"
DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"


@model_kind("identity", "answers with the sample's input SVG unchanged (the 'no edit' baseline)")
def _identity(spec: str, argument: str, options: EndpointOptions) -> Model:
    return IdentityModel()


@model_kind("oracle", "answers with the sample's reference response (a check that scoring works)")
def _oracle(spec: str, argument: str, options: EndpointOptions) -> Model:
    return OracleModel()


@model_kind("empty", "answers nothing (a failure to extract on every task)")
def _empty(spec: str, argument: str, options: EndpointOptions) -> Model:
    return EmptyModel()


@model_kind("hostile", "answers an SVG no renderer may draw: an entity or <use> bomb, a file or "
            "network reference, a script (each must be a recorded failure)")
def _hostile(spec: str, argument: str, options: EndpointOptions) -> Model:
    return HostileModel()


@model_kind(
    "replay", 'answers from a JSONL file of {"id": ..., "response": ...} lines, or from '
    "VLMEvalKit's prediction file (.xlsx, .tsv, .csv) of SArena or UniSVG", "<file.jsonl>"
)
def _replay(spec: str, argument: str, options: EndpointOptions) -> Model:
    return ReplayModel(argument, spec=spec)


@model_kind(
    "openai",
    "the OpenAI API; needs an API key in $OPENAI_API_KEY (sent to api.openai.com only)",
    "<model>",
    sends_requests=True,
)
def _openai(spec: str, argument: str, options: EndpointOptions) -> Model:
    return _http_model(spec, argument, options, openai=True)


@model_kind(
    "openai-compatible",
    "any Chat Completions server at --base-url (vLLM, Ollama, OpenRouter...);"
    " a key only from the variable named by --api-key-env",
    "<model>",
    sends_requests=True,
)
def _openai_compatible(spec: str, argument: str, options: EndpointOptions) -> Model:
    if options.base_url is None:
        raise InvalidModelSetting(f"{spec} needs --base-url, e.g. http://localhost:8000/v1")
    return _http_model(spec, argument, options, openai=False)


def _http_model(spec: str, argument: str, options: EndpointOptions, openai: bool) -> Model:
    endpoint = parse_endpoint(options.base_url if options.base_url is not None else OPENAI_BASE_URL)
    key_env: str | None
    if options.api_key_env is not None:
        key_env = options.api_key_env
    elif openai and endpoint.host == OPENAI_HOST:
        key_env = DEFAULT_API_KEY_ENV
    else:  # a key only from a variable the user names: $OPENAI_API_KEY never goes elsewhere
        key_env = None
    api_key = (os.environ.get(key_env) or None) if key_env is not None else None
    # imported here: httpx takes a tenth of a second to import, which runs of the offline
    # kinds (identity, oracle, replay) need not pay
    from svgeval.models.openai_compat import OpenAICompatibleModel

    if key_env is not None and api_key is None:
        raise ModelUnavailable(f"{spec} needs an API key: set the {key_env} environment variable")
    return OpenAICompatibleModel(
        spec,
        model=argument,
        base_url=endpoint.base_url,
        api_key=api_key,
        api_key_env=key_env,
        max_tokens_field="max_completion_tokens" if openai else "max_tokens",
        concurrency=options.concurrency,
        timeout_s=options.timeout_s,
        first_token_timeout_s=options.first_token_timeout_s,
        stream=options.stream,
        retry=RetryPolicy(max_retries=options.max_retries),
        events=options.events,
    )

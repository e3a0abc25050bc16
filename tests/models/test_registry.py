"""load_model: spec parsing, options, API keys."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from svgeval.models import (
    MODELS,
    Model,
    ModelUnavailable,
    load_model,
    model_spec_forms,
)
from svgeval.models.baselines import IdentityModel, OracleModel
from svgeval.models.openai_compat import OpenAICompatibleModel
from svgeval.run_request import RunOptions
from svgeval.runner.build import judge_of

from .backend_helpers import ask
from .conftest import StartServer

KNOWN_FORMS = ("empty, hf:<hub id or folder>, hostile, identity, openai:<model>, "
               "openai-compatible:<model>, oracle, replay:<file.jsonl>, vllm:<hub id or folder>")


async def generate_and_close(model: Model) -> None:
    """One request with max_tokens=50, in the same event loop as the close."""
    try:
        await model.generate(ask(max_tokens=50))
    finally:
        await model.aclose()


def test_kinds_are_described_and_written_with_their_argument() -> None:
    kinds = MODELS.all()
    assert set(kinds) == {"identity", "oracle", "empty", "hostile", "openai", "openai-compatible",
                          "replay", "hf", "vllm"}
    assert all(kind.summary and "\n" not in kind.summary for kind in kinds.values())
    assert model_spec_forms() == KNOWN_FORMS.split(", ")


def test_baselines() -> None:
    assert isinstance(load_model("identity"), IdentityModel)
    assert isinstance(load_model("oracle"), OracleModel)


def test_only_offline_answers_are_free_to_ask_again(tmp_path: Path) -> None:
    """The runner writes a free model's answers in groups, a paid model's one flushed line each."""
    replay = tmp_path / "answers.jsonl"
    replay.write_text('{"id": "a", "response": "x"}\n')
    free = [load_model("identity"), load_model("oracle"), load_model("empty"),
            load_model("hostile"), load_model(f"replay:{replay}")]
    paid = load_model("openai-compatible:m", base_url="http://127.0.0.1:1/v1")
    assert all(model.answers_are_free for model in free) and not paid.answers_are_free


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("gpt-4o", f"unknown model 'gpt-4o'; known models: {KNOWN_FORMS}"),
        ("openai", "model 'openai' needs an argument: openai:<model>"),
        ("replay:", "model 'replay:' needs an argument: replay:<file.jsonl>"),
        ("identity:x", "model 'identity:x' takes no argument: write 'identity'"),
        ("openai-compatible:m", "openai-compatible:m needs --base-url, e.g. http://localhost:8000/v1"),
    ],
)
def test_bad_specs(spec: str, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        load_model(spec)
    assert str(caught.value) == message


def test_http_options_are_refused_for_offline_kinds() -> None:
    with pytest.raises(ValueError, match="do not apply to 'identity'"):
        load_model("identity", base_url="http://localhost:8000/v1")


def test_base_url_is_checked_and_normalised() -> None:
    with pytest.raises(ValueError, match="must start with http:// or https://"):
        load_model("openai-compatible:m", base_url="localhost:8000/v1")
    model = load_model("openai-compatible:m", base_url="http://h:1/v1/chat/completions/")
    assert isinstance(model, OpenAICompatibleModel)
    assert model.url == "http://h:1/v1/chat/completions"
    asyncio.run(model.aclose())


def test_openai_needs_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ModelUnavailable) as caught:
        load_model("openai:gpt-4o")
    assert str(caught.value) == (
        "openai:gpt-4o needs an API key: set the OPENAI_API_KEY environment variable"
    )


def test_named_key_variable_must_be_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ROUTER_KEY", raising=False)
    with pytest.raises(ModelUnavailable, match="set the ROUTER_KEY environment variable"):
        load_model("openai-compatible:m", base_url="http://h/v1", api_key_env="ROUTER_KEY")


def test_openai_sends_the_named_key_and_max_completion_tokens(
    fake_openai: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    server = fake_openai(api_key="sk-test")
    model = load_model("openai:gpt-4o", base_url=server.base_url, api_key_env="OPENAI_API_KEY")
    asyncio.run(generate_and_close(model))
    [request] = server.chat_requests
    assert request.headers["authorization"] == "Bearer sk-test"
    assert request.body is not None
    assert request.body["model"] == "gpt-4o"
    assert request.body["max_completion_tokens"] == 50
    assert "max_tokens" not in request.body


def test_compatible_model_name_may_contain_colons_and_key_is_optional(
    fake_openai: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server = fake_openai()
    model = load_model("openai-compatible:llama3.1:8b", base_url=server.base_url)
    asyncio.run(generate_and_close(model))
    [request] = server.chat_requests
    assert "authorization" not in request.headers
    assert request.body is not None
    assert request.body["model"] == "llama3.1:8b"
    assert request.body["max_tokens"] == 50


@pytest.mark.parametrize("spec", ["openai-compatible:m", "openai:gpt-4o"])
def test_openai_key_is_never_sent_to_another_server(
    fake_openai: StartServer, monkeypatch: pytest.MonkeyPatch, spec: str
) -> None:
    """Not even by ``openai:`` at another --base-url, unless named (main sent it)."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    server = fake_openai()
    model = load_model(spec, base_url=server.base_url)
    asyncio.run(generate_and_close(model))
    [request] = server.chat_requests
    assert "authorization" not in request.headers


def test_the_openai_host_needs_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    for url in (None, "https://api.openai.com/v1/"):
        with pytest.raises(ModelUnavailable, match="set the OPENAI_API_KEY environment"):
            load_model("openai:gpt-4o", base_url=url)


def test_a_judge_at_another_url_gets_no_openai_key(
    fake_openai: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    monkeypatch.setenv("JUDGE_KEY", "sk-judge")
    server = fake_openai()
    for key_env in (None, "JUDGE_KEY"):
        judge = judge_of(RunOptions(judge="openai:gpt-4o", judge_base_url=server.base_url,
                                    judge_api_key_env=key_env, judge_concurrency=1))
        assert judge is not None and judge.model is not None
        asyncio.run(generate_and_close(judge.model))
    sent = [request.headers.get("authorization") for request in server.chat_requests]
    assert sent == [None, "Bearer sk-judge"]


def test_streaming_and_timeouts_reach_the_backend() -> None:
    model = load_model(
        "openai-compatible:m", base_url="http://h/v1", timeout_s=30, first_token_timeout_s=900,
        stream=False,
    )
    assert isinstance(model, OpenAICompatibleModel)
    assert (model.timeout_s, model.first_token_timeout_s, model.stream) == (30, 900, False)
    default = load_model("openai-compatible:m", base_url="http://h/v1", timeout_s=30)
    assert isinstance(default, OpenAICompatibleModel)
    assert (default.first_token_timeout_s, default.stream) == (300, True)
    asyncio.run(model.aclose())
    asyncio.run(default.aclose())

"""The fake server itself: routes, the default echo reply, and how requests are numbered."""

from __future__ import annotations

import httpx
from support.fake_openai_server import FakeOpenAIServer, echo_svg

from .conftest import StartServer


def chat(server: FakeOpenAIServer, content: str) -> httpx.Response:
    body = {"model": "m", "messages": [{"role": "user", "content": content}]}
    return httpx.post(f"{server.base_url}/chat/completions", json=body, timeout=5)


def test_lists_its_models(fake_openai: StartServer) -> None:
    server = fake_openai(models=["a", "b"])
    listing = httpx.get(f"{server.base_url}/models", timeout=5).json()
    assert [entry["id"] for entry in listing["data"]] == ["a", "b"]
    assert server.chat_requests == []
    assert [(r.method, r.path) for r in server.requests] == [("GET", "/v1/models")]


def test_echo_replies_with_the_first_svg_of_the_last_user_message() -> None:
    body = {
        "messages": [
            {"role": "user", "content": "<svg>old</svg>"},
            {"role": "user", "content": "Edit <svg>in</svg>; answer like <svg>example</svg>"},
        ]
    }
    assert echo_svg(body) == "```svg\n<svg>in</svg>\n```"


def test_requests_are_numbered_and_attempts_counted_per_prompt(fake_openai: StartServer) -> None:
    server = fake_openai()
    for content in ("one", "two", "one"):
        assert chat(server, content).status_code == 200
    assert [(r.index, r.attempt) for r in server.chat_requests] == [(0, 0), (1, 0), (2, 1)]
    unknown = httpx.post(f"{server.base_url}/completions", json={}, timeout=5)
    assert unknown.status_code == 404

"""Base URLs with credentials: requests go where the user said, the secrets are never shown."""

from __future__ import annotations

import pytest

from svgeval.models.endpoint import parse_endpoint


def test_a_query_string_stays_after_the_request_path() -> None:
    endpoint = parse_endpoint("https://gw.example/openai/v1/?api-version=2024-06&key=s3cr3t-k3y")
    assert endpoint.chat_url == (
        "https://gw.example/openai/v1/chat/completions?api-version=2024-06&key=s3cr3t-k3y"
    )
    assert endpoint.shown == "https://gw.example/openai/v1?api-version=***&key=***"


def test_user_and_password_are_hidden_and_kept_for_the_request() -> None:
    endpoint = parse_endpoint("http://alice:pa%24%24word@127.0.0.1:8000/v1/chat/completions/")
    assert endpoint.base_url == "http://alice:pa%24%24word@127.0.0.1:8000/v1"
    assert endpoint.chat_url == "http://alice:pa%24%24word@127.0.0.1:8000/v1/chat/completions"
    assert endpoint.shown == "http://***@127.0.0.1:8000/v1"
    assert endpoint.host == "127.0.0.1"


def test_secrets_are_redacted_from_server_text_in_both_spellings() -> None:
    endpoint = parse_endpoint("http://alice:pa%24%24word@h/v1?key=k%2Fk-123456")
    echoed = "denied: user alice, password pa$$word, key k/k-123456 (raw k%2Fk-123456), api sk-live-9"
    assert endpoint.redact(echoed, ["sk-live-9", None]) == (
        "denied: user ***, password ***, key *** (raw ***), api ***"
    )


def test_short_values_are_hidden_where_they_stand_alone_only() -> None:
    endpoint = parse_endpoint("http://h/v1?v=2")
    assert endpoint.shown == "http://h/v1?v=***"
    assert endpoint.redact("HTTP 502 from v2, v=2", []) == "HTTP 502 from v2, v=***"


def test_a_short_password_and_its_basic_authorization_are_hidden() -> None:
    """Issue 43, defect 7: a server echoing ``Authorization`` gave away ``alice:pw`` in base64
    (``YWxpY2U6cHc=``, as httpx sends it), and ``pw``, under 4 characters, was not hunted."""
    endpoint = parse_endpoint("http://alice:pw@h/v1")
    echoed = "bad auth Basic YWxpY2U6cHc= (user alice, password pw; pwd unset)"
    assert endpoint.redact(echoed) == "bad auth Basic *** (user ***, password ***; pwd unset)"


@pytest.mark.parametrize("url", ["localhost:8000/v1", "ftp://h/v1", "http:///v1", "user:pw@h"])
def test_only_http_urls_with_a_host_are_accepted_and_the_error_hides_secrets(url: str) -> None:
    with pytest.raises(ValueError, match="must start with http:// or https://") as caught:
        parse_endpoint(url)
    assert "pw" not in str(caught.value)

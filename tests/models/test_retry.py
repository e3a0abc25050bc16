"""Retry delays: exponential backoff with jitter, and the server's Retry-After."""

from __future__ import annotations

import random
from datetime import datetime, timezone

import pytest

from svgeval.models.retry import RetryPolicy, is_retryable_status, parse_retry_after

NOW = datetime(2024, 5, 1, 12, 0, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"retry-after": "7"}, 7.0),
        ({"retry-after": "0.5"}, 0.5),
        ({"retry-after": "Wed, 01 May 2024 12:00:30 GMT"}, 30.0),
        ({"retry-after": "Wed, 01 May 2024 11:59:00 GMT"}, 0.0),  # already past
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"retry-after": "soon"}, None),
        ({"retry-after": "-3"}, None),
        ({}, None),
    ],
)
def test_parse_retry_after(headers: dict[str, str], seconds: float | None) -> None:
    assert parse_retry_after(headers, now=NOW) == seconds


def test_backoff_grows_exponentially_with_jitter_up_to_the_maximum() -> None:
    policy = RetryPolicy(base_delay_s=1.0, max_delay_s=10.0)
    rng = random.Random(0)
    for retry, ceiling in enumerate([1.0, 2.0, 4.0, 8.0, 10.0, 10.0]):
        delays = [policy.delay_s(retry, None, rng) for _ in range(200)]
        assert ceiling / 2 <= min(delays) and max(delays) <= ceiling
        assert max(delays) - min(delays) > ceiling / 4  # jittered, not constant


def test_retry_after_overrides_backoff_and_is_capped() -> None:
    policy = RetryPolicy(base_delay_s=1.0, max_delay_s=10.0, retry_after_cap_s=60.0)
    rng = random.Random(0)
    assert 0.2 <= policy.delay_s(5, 0.2, rng) <= 0.22
    assert 60.0 <= policy.delay_s(0, 3600.0, rng) <= 66.0


@pytest.mark.parametrize(("status", "retryable"), [(429, True), (500, True), (503, True),
                                                   (408, True), (400, False), (401, False),
                                                   (404, False), (422, False)])
def test_retryable_statuses(status: int, retryable: bool) -> None:
    assert is_retryable_status(status) is retryable


def test_policy_rejects_negative_settings() -> None:
    with pytest.raises(ValueError, match="max_retries"):
        RetryPolicy(max_retries=-1)
    with pytest.raises(ValueError, match="delays"):
        RetryPolicy(base_delay_s=-1.0)

"""When and how long to wait before retrying an HTTP request to a model server.

:class:`RetryPolicy` holds the timings (tests inject small ones) and turns "this was retry
number *n*, and the server said ``Retry-After: x``" into a delay. Without a ``Retry-After`` the
delay grows exponentially with random jitter, so that many requests throttled at the same
moment do not all come back at the same moment.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime

RETRYABLE_STATUSES = frozenset({408, 409, 429})
"""Statuses worth retrying besides every 5xx: request timeout, conflict, rate limited."""


def is_retryable_status(status: int) -> bool:
    """Whether an HTTP error status is transient (429, 408, 409, any 5xx)."""
    return status in RETRYABLE_STATUSES or status >= 500


@dataclass(frozen=True)
class RetryPolicy:
    """How many times to retry and how long to wait in between.

    Retry *n* (0 for the first retry) waits ``min(max_delay_s, base_delay_s * 2**n)`` scaled by
    a random factor in ``[0.5, 1]``. When the server sends ``Retry-After``, that wait is used
    instead, capped at ``retry_after_cap_s`` and stretched by up to 10 % of jitter (so the wait
    is never shorter than what the server asked, up to the cap).
    """

    max_retries: int = 6
    base_delay_s: float = 1.0
    max_delay_s: float = 30.0
    retry_after_cap_s: float = 60.0

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {self.max_retries}")
        if min(self.base_delay_s, self.max_delay_s, self.retry_after_cap_s) < 0:
            raise ValueError("retry delays must be >= 0")

    def delay_s(self, retry: int, retry_after_s: float | None, rng: random.Random) -> float:
        """Seconds to wait before retry number ``retry`` (0-based)."""
        if retry_after_s is not None:
            return min(retry_after_s, self.retry_after_cap_s) * rng.uniform(1.0, 1.1)
        exponential = min(self.max_delay_s, self.base_delay_s * 2.0**retry)
        return exponential * rng.uniform(0.5, 1.0)


def parse_retry_after(headers: Mapping[str, str], now: datetime | None = None) -> float | None:
    """Seconds the server asks us to wait, or None when it does not say (or says nonsense).

    Reads ``retry-after-ms`` (sent by the OpenAI API) first, then ``retry-after`` as a number
    of seconds or an HTTP date (RFC 9110); a date in the past means no wait. ``headers`` must
    look names up case-insensitively (as ``httpx.Headers`` does) or use lower-case names.
    """
    milliseconds = _non_negative_float(headers.get("retry-after-ms"))
    if milliseconds is not None:
        return milliseconds / 1000.0
    value = headers.get("retry-after")
    if value is None:
        return None
    seconds = _non_negative_float(value)
    if seconds is not None:
        return seconds
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # an HTTP date is always GMT; be lenient with ones that omit it
        when = when.replace(tzinfo=timezone.utc)
    reference = now if now is not None else datetime.now(timezone.utc)
    return max(0.0, (when - reference).total_seconds())


def _non_negative_float(value: str | None) -> float | None:
    """``value`` as a finite number >= 0, else None."""
    if value is None:
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if 0.0 <= number < float("inf") else None

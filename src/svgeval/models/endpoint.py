"""Where an HTTP backend sends its requests, and what of that address may be shown.

A base URL can carry credentials: a user name and password (``https://user:pass@host/v1``, which
httpx sends as basic authentication) or a key in its query string (``https://host/v1?key=...``,
as Azure-style gateways take). :class:`Endpoint` keeps the URL as given for the requests and
offers :attr:`Endpoint.shown`, the same URL with the user name, password and every query value
replaced by ``***``: that is the form written to ``config.json``, records, reports and
messages. :meth:`Endpoint.redact` hides the same secrets, and the API key, in any text a server
sends back (an error body that echoes the key), and the ``Authorization`` value httpx makes of
the user name and password (``Basic`` and their base64).

The request path is the base URL's path plus ``/chat/completions``, with the query string kept
after it: ``https://host/v1?key=k`` posts to ``https://host/v1/chat/completions?key=k``.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import quote, unquote, urlencode, urlsplit, urlunsplit

from svgeval.models.base import InvalidModelSetting

HIDDEN = "***"
"""What a secret is replaced with."""

MIN_SECRET_CHARS = 4
"""Secrets this long are hidden wherever they appear in a server's message; shorter ones only
where they stand alone, not inside a word ("pw" is hidden, "pwd" is kept)."""


@dataclass(frozen=True)
class Endpoint:
    """A Chat Completions base URL (without ``/chat/completions``), checked and split."""

    base_url: str
    """The URL as given, without a trailing slash or ``/chat/completions``: secrets included."""
    host: str
    """The host name, lower case."""
    shown: str
    """The URL with credentials and query values replaced by ``***``."""
    basic_auth: bool = False
    """True when the URL carries a user name or password, which httpx sends as the request's
    ``Authorization: Basic`` header."""
    secrets: tuple[str, ...] = field(default=(), repr=False)
    """User name, password and query values, as written and percent-decoded, and the base64 of
    ``user:password`` that basic authentication sends."""

    @property
    def chat_url(self) -> str:
        """Where requests go: the path plus ``/chat/completions``, then the query string."""
        parts = urlsplit(self.base_url)
        return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/chat/completions"))

    def redact(self, text: str, extra: Iterable[str | None] = ()) -> str:
        """``text`` with this URL's secrets and each of ``extra`` (an API key) hidden."""
        for secret in sorted({*self.secrets, *(value for value in extra if value)}, key=len,
                             reverse=True):
            if len(secret) >= MIN_SECRET_CHARS:
                text = text.replace(secret, HIDDEN)
            else:
                alone = rf"(?<![^\W_]){re.escape(secret)}(?![^\W_])"
                text = re.sub(alone, HIDDEN, text)
        return text


def parse_endpoint(base_url: str) -> Endpoint:
    """The endpoint of ``base_url``; :class:`InvalidModelSetting` (a ValueError) unless it is an
    http(s) URL with a host.

    A trailing slash and a trailing ``/chat/completions`` are dropped from the path.
    """
    given = base_url.strip()
    parts = urlsplit(given)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidModelSetting(
            f"base URL must start with http:// or https://, got {shown_form(given)!r}")
    path = parts.path.rstrip("/").removesuffix("/chat/completions").rstrip("/")
    clean = urlunsplit(parts._replace(path=path, fragment=""))
    query = [pair.partition("=") for pair in parts.query.split("&") if pair]
    secrets = [parts.username, parts.password, *(value for _, _, value in query)]
    decoded = [unquote(secret) for secret in secrets if secret]
    if parts.username or parts.password:  # what httpx sends: Basic base64(user:password)
        pair = f"{unquote(parts.username or '')}:{unquote(parts.password or '')}"
        decoded.append(base64.b64encode(pair.encode("utf-8")).decode("ascii"))
    return Endpoint(
        base_url=clean,
        host=parts.hostname.lower(),
        shown=shown_form(clean),
        basic_auth=bool(parts.username or parts.password),
        secrets=tuple(dict.fromkeys([*(s for s in secrets if s), *decoded])),
    )


def shown_form(url: str) -> str:
    """``url`` with its user name, password and query values replaced by ``***``."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{HIDDEN}@{netloc.rpartition('@')[2]}"
    pairs = [pair.partition("=") for pair in parts.query.split("&") if pair]
    query = urlencode([(unquote(name), HIDDEN) for name, _, _ in pairs], safe="*", quote_via=quote)
    shown = urlunsplit(parts._replace(netloc=netloc, query=query, fragment=""))
    # what is not a URL (no scheme, so no user info to split off) loses all before its "@"
    return re.sub(r"(^|//)[^/?#]*@", rf"\g<1>{HIDDEN}@", shown)

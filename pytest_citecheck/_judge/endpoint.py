"""TypeSafe's address (``TYPESAFE_BASE_URL``): whether it can be used, and how it may be shown.

A base URL may carry a credential: a gateway's token in its path (``http://gw/TOKEN/``), a
``user:pass@``, a token in its query. pytest-citecheck shows a base URL only as its scheme, host and
port (``shown``), and ``scrub`` rewrites any URL of the configured host that way in a message or a
log line. A malformed one (``http://[::1``) cannot be sent to; when replaying nothing is sent, so a
placeholder stands in for it (``for_replay``).
"""

from __future__ import annotations

import os
import re
from urllib.parse import urlsplit

ENV = "TYPESAFE_BASE_URL"
DEFAULT = "https://api.typesafe.ai"
MALFORMED = "(a malformed URL)"
# A URL in running text: up to the first space, quote or bracket that cannot belong to it.
_URL = re.compile(r"""[A-Za-z][A-Za-z0-9+.-]*://[^\s'"<>`]+""")


def configured() -> str | None:
    """The environment's base URL, or None when it is not set."""
    value = os.environ.get(ENV, "").strip()
    return value or None


def is_usable(url: str) -> bool:
    """Whether the HTTP library can send to ``url`` (``http://[::1`` cannot: its port is ``:1``)."""
    import httpx2  # the SDK's HTTP library, always installed with it

    try:
        parsed = httpx2.URL(url)
    except (httpx2.InvalidURL, TypeError, ValueError):
        return False
    return parsed.scheme in ("http", "https") and bool(parsed.host)


def for_replay() -> dict[str, str]:
    """The client's ``base_url`` when replaying: a placeholder if the environment's cannot be used, else none.

    Replay matches method, path and body (not the host), and sends nothing; a usable base URL is
    kept, so a recording made through a gateway's path still matches.
    """
    url = configured()
    return {} if url is None or is_usable(url) else {"base_url": DEFAULT}


def refused_userinfo() -> tuple[str, str]:
    """Cause and remedy of a 401 when the environment's base URL holds a user name or password; else empty.

    The HTTP library sends them (``https://user:pass@host``) as Basic authentication in place of the API
    key's bearer token: the 401 then says nothing about the key (``_judge.failures``).
    """
    url = configured()
    try:
        parts = urlsplit(url) if url is not None else None
    except ValueError:
        return "", ""
    if parts is None or (parts.username is None and parts.password is None):
        return "", ""
    return (
        "TypeSafe refused the request (HTTP 401): TYPESAFE_BASE_URL holds a user name or password (user:...@host), "
        "which the HTTP library sends as Basic authentication in place of the API key, so the key was never sent",
        "take the user name and password out of TYPESAFE_BASE_URL (the key goes in TYPESAFE_API_KEY), or replay the "
        "committed cassette",
    )


def shown(url: str) -> str:
    """``url`` as scheme, host and port only: whatever else it holds may be a credential."""
    try:
        parts = urlsplit(url.strip())
        host, port = parts.hostname, parts.port
    except ValueError:
        return MALFORMED
    if not parts.scheme or not host:
        return MALFORMED
    host = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{host}" + (f":{port}" if port is not None else "")


def scrub(text: str) -> str:
    """``text`` with every URL of the configured base URL's host shown as scheme, host and port only.

    The SDK's errors and logs name the URL they sent to (base URL and endpoint); that is where a
    credential in the base URL would surface.
    """
    url = configured()
    if url is None or "://" not in text:
        return text
    host = _host(url)
    if url in text:
        text = text.replace(url, shown(url))
    if host is None:
        return text
    return _URL.sub(lambda match: shown(match.group(0)) if _host(match.group(0)) == host else match.group(0), text)


def _host(url: str) -> str | None:
    try:
        return urlsplit(url).hostname
    except ValueError:
        return None

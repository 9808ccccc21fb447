"""A record run with no key: the clients the plugin built with its placeholder key, and what a 401 to one means.

With TYPESAFE_API_KEY unset the plugin still builds a client (replay needs one), with a placeholder
key (``_pytest_glue.fixtures.REPLAY_ONLY_KEY``). A request it sends is answered 401 by TypeSafe (and
by ``citecheck serve --require-real-key``): that is not a key TypeSafe rejected but no key at all,
and the message says so. The key itself is never part of a message.
"""

from __future__ import annotations

import weakref
from typing import Any

# Weak: a client closed and dropped leaves the set by itself.
_PLACEHOLDER_CLIENTS: weakref.WeakSet[Any] = weakref.WeakSet()

NO_KEY_CAUSE = (
    "no TYPESAFE_API_KEY is set in this run, and a record run needs one (TypeSafe answered HTTP 401 to the "
    "placeholder key the plugin sends without one)"
)
NO_KEY_REMEDY = "set TYPESAFE_API_KEY to your TypeSafe API key, or replay the committed cassette"


def built_without_a_key(client: Any) -> None:
    """Remember ``client`` as built with the placeholder key (TYPESAFE_API_KEY not set)."""
    _PLACEHOLDER_CLIENTS.add(client)


def no_key_was_set(client: Any, error: BaseException) -> bool:
    """``error`` is TypeSafe's 401 to a client built with the placeholder key."""
    if type(error).__name__ != "TypeSafeAuthenticationError":
        return False
    try:
        return client in _PLACEHOLDER_CLIENTS
    except TypeError:  # a client of a kind that cannot be weakly referenced: never one of ours
        return False

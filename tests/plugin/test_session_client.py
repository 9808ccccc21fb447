"""The session's SDK client (``fixtures.SessionClient``): one for the session, a new one as soon as
the environment it was built from changes, and no copy of the key kept to tell."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from pytest_citecheck._pytest_glue.fixtures import CLIENT_ENVIRONMENT, SessionClient

# Two values of the same length for each variable: a new value's object may take a freed one's place.
VALUES = {
    "TYPESAFE_API_KEY": ("sk-session-key-a", "sk-session-key-b", "sk-session-key-c"),
    "TYPESAFE_BASE_URL": ("http://127.0.0.1:1", "http://127.0.0.1:2", "http://127.0.0.1:3"),
    "TYPESAFE_DEFAULT_MODEL": ("jev-model-a", "jev-model-b", "jev-model-c"),
}


@pytest.fixture
def holder(monkeypatch: pytest.MonkeyPatch) -> Iterator[SessionClient]:
    for name in CLIENT_ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TYPESAFE_BASE_URL", "http://127.0.0.1:9")
    holder = SessionClient({})
    yield holder
    holder.close()


def test_an_unchanged_environment_keeps_the_client(holder: SessionClient, monkeypatch: pytest.MonkeyPatch) -> None:
    first = holder.current()
    assert holder.current() is first
    # Set again to the value it had: os.environ holds a new object, and the client is still the same.
    monkeypatch.setenv("TYPESAFE_BASE_URL", "http://127.0.0.1:9")
    assert holder.current() is first
    assert holder.current() is first


@pytest.mark.parametrize("name", CLIENT_ENVIRONMENT)
def test_each_variable_that_changes_gives_a_new_client(
    holder: SessionClient, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    a, b, c = VALUES[name]
    before = holder.current()
    monkeypatch.setenv(name, a)
    first = holder.current()
    assert first is not before
    monkeypatch.setenv(name, b)
    second = holder.current()
    assert second is not first
    # Two changes between checks: the first value's object is gone, and the third may take its place.
    monkeypatch.setenv(name, c)
    monkeypatch.setenv(name, a)
    assert holder.current() is not second
    monkeypatch.setenv(name, b)
    monkeypatch.setenv(name, c)
    third = holder.current()
    monkeypatch.delenv(name)
    assert holder.current() is not third


def test_a_closed_holder_builds_a_new_client(holder: SessionClient) -> None:
    first = holder.current()
    holder.close()
    assert holder.current() is not first


def test_an_environment_replaced_by_a_plain_mapping_is_still_followed(
    holder: SessionClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "environ", {"TYPESAFE_BASE_URL": "http://127.0.0.1:9"})
    first = holder.current()
    assert holder.current() is first
    os.environ["TYPESAFE_API_KEY"] = "sk-session-key-d"
    assert holder.current() is not first


def test_the_holder_keeps_no_copy_of_the_key(holder: SessionClient, monkeypatch: pytest.MonkeyPatch) -> None:
    key = "sk-session-key-not-copied"
    monkeypatch.setenv("TYPESAFE_API_KEY", key)
    client = holder.current()
    environ_objects = vars(os.environ)["_data"].values()
    for name, value in vars(holder).items():
        if value is client:
            continue
        for part in value if isinstance(value, tuple) else (value,):
            # Either no text of the key, or the very object os.environ holds (not a copy of it).
            assert key not in repr(part) or any(part is held for held in environ_objects), name
    # Once the key has changed and the holder has looked, the old key's object is not held either.
    monkeypatch.setenv("TYPESAFE_API_KEY", "sk-session-key-replaced")
    holder.current()
    assert key not in repr(vars(holder))

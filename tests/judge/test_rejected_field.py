"""A 422's remedy names the field Jev rejected, read from the response body (issue 26, item 9).

The body is TypeSafe's validation error (``HTTPValidationError`` in typesafe-sdk's schema:
``{"detail": [{"loc": ["body", ...], "msg": ..., "type": ...}]}``); the real SDK over HTTP to the
loopback JevServer, sync and async.
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import Any

import anyio
import pytest
from typesafe_sdk import AsyncTypeSafeClient, TypeSafeClient

from pytest_citecheck import Checker, JudgeError, Source
from pytest_citecheck.testing import JevServer, Reply

SOURCE = Source(sections={"1": "Refunds are granted within 30 days of purchase, on request."})
CITATION = {"id": "r1", "claim": "Refunds are possible for 30 days.", "quote": "granted within 30 days", "section": "1"}

MODEL = {
    "loc": ["body", "model"],
    "msg": "Input should be 'jev-1.12', 'jev-1.13.0', 'jev-latest' or 'jev-preview'",
    "type": "literal_error",
    "input": "jev-9",
}
SECTION = {
    "loc": ["body", "state", "section"],
    "msg": "String should have at most 100000 characters",
    "type": "string_too_long",
}
# Some servers send one entry, not a list (seen in published API docs).
SINGLE = {"detail": {"loc": ["body", "model"], "msg": "unknown model", "type": "value_error"}}
# A hostile server: a message over several lines that would start a workflow command.
HOSTILE = {"loc": ["body", "state", "claim"], "msg": "bad\n::warning::pwned\nmore", "type": "value_error"}


def check_sync(server: JevServer) -> None:
    client = TypeSafeClient(api_key="sk-test", base_url=server.url, compression=False)
    try:
        Checker(client=client, rehearsal=True, model="jev-9").check([CITATION], SOURCE)
    finally:
        client.close()


def check_async(server: JevServer) -> None:
    async def main() -> None:
        client = AsyncTypeSafeClient(api_key="sk-test", base_url=server.url, compression=False)
        try:
            await Checker(async_client=client, rehearsal=True, model="jev-9").acheck([CITATION], SOURCE)
        finally:
            await client.aclose()

    anyio.run(main)


@pytest.mark.parametrize("check", [check_sync, check_async], ids=["sync", "async"])
@pytest.mark.parametrize(
    ("entries", "remedy"),
    [
        (
            [MODEL],
            "Jev rejected field 'model' (Input should be 'jev-1.12', *): check the model name (--citecheck-model*",
        ),
        ([SECTION], "Jev rejected field 'state.section' (String should have at most 100000 characters): *window=N*"),
        ([SECTION, MODEL], "Jev rejected fields 'state.section', 'model' (*): *window=N*"),
        ([HOSTILE], "Jev rejected field 'state.claim' (bad ::warning::pwned more): check the claim*"),
    ],
    ids=["model", "section", "two-fields", "hostile-message"],
)
def test_a_422_remedy_names_the_rejected_field(check: Any, entries: list[dict], remedy: str) -> None:
    with JevServer(lambda claim, section: Reply(422, {"detail": entries})) as server:
        with pytest.raises(JudgeError) as raised:
            check(server)
    assert raised.value.citation == "r1"
    assert fnmatchcase(raised.value.remedy, remedy), raised.value.remedy
    assert all(not line.lstrip().startswith("::") for line in str(raised.value).splitlines())


def test_a_422_with_one_entry_not_a_list_names_its_field() -> None:
    with JevServer(lambda claim, section: Reply(422, SINGLE)) as server:
        with pytest.raises(JudgeError) as raised:
            check_sync(server)
    assert raised.value.remedy.startswith("Jev rejected field 'model' (unknown model): check the model name")


def test_a_422_without_a_validation_body_keeps_the_general_remedy() -> None:
    with JevServer(lambda claim, section: Reply(422, {"detail": "bad request"})) as server:
        with pytest.raises(JudgeError) as raised:
            check_sync(server)
    assert raised.value.remedy == "check the model name and that the section fits Jev's limits"

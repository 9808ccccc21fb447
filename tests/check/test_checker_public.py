"""``Checker(...)``, the public constructor: public types only (clients and the per-test options).

What the plugin wires to a test (settings, cassette, review actions, callbacks) stays behind the
internal ``checker_for``; a user's checker asks the loopback Jev through the clients it was given.
"""

from __future__ import annotations

import anyio
import pytest
from typesafe_sdk import AsyncTypeSafeClient, TypeSafeClient

from pytest_citecheck import Checker, CitationsNotSupported, OptionError, Source, Verdict
from pytest_citecheck.testing import JevServer

SOURCE = Source(sections={"1": "Refunds are granted within 30 days of purchase, on request."})
CITATION = {"id": "r1", "claim": "Refunds are possible for 30 days.", "quote": "granted within 30 days", "section": "1"}


def test_a_users_checker_asks_through_the_client_it_was_given_with_its_options() -> None:
    with JevServer(lambda claim, section: ("supports", 0.85)) as server:
        client = TypeSafeClient(api_key="sk-test", base_url=server.url, compression=False)
        checker = Checker(client=client, rehearsal=True, auto_accept=0.6, model="jev-1.12")
        [result] = checker.check([CITATION], SOURCE)
        client.close()
        assert len(server.systemone_requests) == 1
    assert result.verdict is Verdict.VERIFIED and result.auto  # confidence 0.78 stands at 0.6, not at the default 0.8
    assert checker.settings.auto_accept == 0.6 and checker.cassette is None
    assert checker.results == [result]


def test_a_users_checker_asserts_and_its_call_keywords_win_over_its_own() -> None:
    with JevServer(lambda claim, section: ("contradicts", 0.9)) as server:
        client = TypeSafeClient(api_key="sk-test", base_url=server.url, compression=False)
        checker = Checker(client=client, rehearsal=True, fail_on="fabricated")
        checker.assert_supported([CITATION], SOURCE)  # contradicted is not in this checker's fail_on
        with pytest.raises(CitationsNotSupported) as raised:
            checker.assert_supported([CITATION], SOURCE, fail_on="contradicted")
        client.close()
    assert raised.value.failing_ids == ["r1"]


def test_a_users_async_checker_asks_through_its_async_client() -> None:
    async def main(server: JevServer) -> list:
        client = AsyncTypeSafeClient(api_key="sk-test", base_url=server.url, compression=False)
        try:
            return await Checker(async_client=client, rehearsal=True).acheck([CITATION], SOURCE)
        finally:
            await client.aclose()

    with JevServer(lambda claim, section: ("says_nothing", 0.9)) as server:
        [result] = anyio.run(main, server)
    assert result.verdict is Verdict.UNSUPPORTED


def test_a_misspelt_or_internal_keyword_is_an_option_error_naming_the_constructor() -> None:
    with pytest.raises(OptionError, match=r"Checker\(\) keyword argument.*unknown argument 'auto_acept'"):
        Checker(auto_acept=0.5)  # type: ignore[call-arg]
    with pytest.raises(OptionError, match="unknown argument 'settings'"):
        Checker(settings=None)  # type: ignore[call-arg]

"""A script's ``Checker`` refuses the rehearsal server's answers unless it is built with ``rehearsal=True``.

``JevServer`` and ``citecheck serve`` mark every answer (``"rehearsal": ...``, changelog 26); a pytest run
refuses a marked answer unless ``--citecheck-rehearsal``. A script's checker (no cassette) took them, counted,
and passed: a script left pointing at the rehearsal server (``TYPESAFE_BASE_URL`` still exported, as
``citecheck serve`` asks) reported table answers as Jev's verdicts. It fails closed now, as a pytest run does,
and opts in with the knob's name, as it takes the other knobs: ``Checker(..., rehearsal=True)``.
"""

from __future__ import annotations

import re

import anyio
import pytest
from typesafe_sdk import AsyncTypeSafeClient, TypeSafeClient

from pytest_citecheck import Checker, JudgeError, OptionError, Source, Verdict
from pytest_citecheck._judge.relation import QUESTION_NAME
from pytest_citecheck.testing import JevServer, Reply, choice_answer

SOURCE = Source(sections={"1": "Refunds are granted within 30 days of purchase, on request."})
CITATION = {"id": "r1", "claim": "Refunds are possible for 30 days.", "quote": "granted within 30 days", "section": "1"}


def refused(error: BaseException) -> None:
    """The error names the citation, the cause and the script's remedy (not pytest's flag)."""
    text = str(error)
    assert "citation 'r1'" in text
    assert "rehearsal server" in text and "not from TypeSafe's Jev" in text
    assert "Checker(..., rehearsal=True)" in text
    assert "--citecheck-rehearsal" not in text


def test_a_scripts_checker_refuses_a_marked_answer() -> None:
    with JevServer(lambda claim, section: ("supports", 0.97)) as server:
        client = TypeSafeClient(api_key="sk-test", base_url=server.url, compression=False)
        checker = Checker(client=client)
        with pytest.raises(JudgeError) as raised:
            checker.check([CITATION], SOURCE)
        client.close()
        assert len(server.systemone_requests) == 1
    refused(raised.value)
    assert all(result.verdict is not Verdict.VERIFIED for result in checker.results)


def test_a_scripts_async_checker_refuses_a_marked_answer() -> None:
    async def main(server: JevServer) -> None:
        client = AsyncTypeSafeClient(api_key="sk-test", base_url=server.url, compression=False)
        try:
            await Checker(async_client=client).acheck([CITATION], SOURCE)
        finally:
            await client.aclose()

    with JevServer(lambda claim, section: ("supports", 0.97)) as server, pytest.raises(JudgeError) as raised:
        anyio.run(main, server)
    refused(raised.value)


def test_a_scripts_assert_supported_refuses_a_marked_answer() -> None:
    with JevServer(lambda claim, section: ("supports", 0.97)) as server:
        client = TypeSafeClient(api_key="sk-test", base_url=server.url, compression=False)
        with pytest.raises(JudgeError) as raised:
            Checker(client=client).assert_supported([CITATION], SOURCE)
        client.close()
    refused(raised.value)


@pytest.mark.parametrize("opt_in", [True, "true"], ids=["bool", "text"])
def test_a_scripts_checker_built_with_rehearsal_takes_them_counted(opt_in: object) -> None:
    with JevServer(lambda claim, section: ("supports", 0.97)) as server:
        client = TypeSafeClient(api_key="sk-test", base_url=server.url, compression=False)
        checker = Checker(client=client, rehearsal=opt_in)  # type: ignore[arg-type]
        [result] = checker.check([CITATION], SOURCE)
        client.close()
    assert result.verdict is Verdict.VERIFIED
    assert checker.settings.rehearsal is True
    assert result.judgement is not None and result.judgement.rehearsal is True


def test_an_unmarked_answer_needs_no_opt_in() -> None:
    """``Reply(..., rehearsal=False)`` re-serves answers Jev really gave (the README's example): taken as Jev's."""
    body = {"model": "jev-1.12", "answers": {QUESTION_NAME: choice_answer("supports", 0.97)}, "usage": {}}
    with JevServer(lambda claim, section: Reply(200, body, rehearsal=False)) as server:
        client = TypeSafeClient(api_key="sk-test", base_url=server.url, compression=False)
        [result] = Checker(client=client).check([CITATION], SOURCE)
        client.close()
    assert result.verdict is Verdict.VERIFIED and result.judgement is not None and not result.judgement.rehearsal


def test_rehearsal_that_is_no_yes_or_no_is_an_option_error_naming_the_constructor() -> None:
    with pytest.raises(OptionError, match=re.escape("Checker() keyword argument") + ".*rehearsal.*true or false"):
        Checker(rehearsal="maybe")  # type: ignore[arg-type]

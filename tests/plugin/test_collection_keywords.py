"""The collection-valued keywords (``fail_on``, ``questions``): a name or a collection of names, nothing else.

A mapping was read as its keys (``fail_on={"fabricated": False}`` failed on fabricated verdicts,
``questions={"out_of_context": 0}`` asked the question), bytes as their numbers (``fail_on=b"fabricated"``
said ``unknown verdict 102``): each is refused, naming the keyword and the accepted form.
"""

from __future__ import annotations

import pytest

from pytest_citecheck._errors import OptionError
from pytest_citecheck._options import Settings
from pytest_citecheck._results import Verdict

NOT_NAMES = [
    {"fabricated": False},
    {"fabricated": True},
    b"fabricated",
    bytearray(b"fabricated"),
    memoryview(b"fabricated"),
    [b"fabricated"],
    ("contradicted", 1),
    ["contradicted", None],
    17,
]


def shown(value: object) -> str:
    """A stable test id (a memoryview's repr holds its address, which differs between xdist workers)."""
    return f"memoryview({bytes(value)!r})" if isinstance(value, memoryview) else repr(value)


@pytest.mark.parametrize("raw", NOT_NAMES, ids=shown)
def test_fail_on_refuses_what_is_not_a_verdict_name_or_a_collection_of_them(raw) -> None:
    with pytest.raises(OptionError) as raised:
        Settings().override({"fail_on": raw}, "check() keyword argument")
    message = str(raised.value)
    assert message.startswith("check() keyword argument: fail_on: expected a verdict name or a collection of")
    assert "unknown verdict 102" not in message


@pytest.mark.parametrize(
    ("raw", "named"),
    [
        (17, "got 17 (an int)"),
        (("contradicted", 1), "got 1 (an int) in ['contradicted', 1]"),
        (0.5, "got 0.5 (a float)"),
    ],
)
def test_a_value_that_is_not_a_name_is_named_with_its_type_and_the_right_article(raw, named) -> None:
    # Found trying configuration.md's collections rule with questions={"out_of_context", 3}: "got 3 (a int)".
    with pytest.raises(OptionError) as raised:
        Settings().override({"fail_on": raw}, "check() keyword argument")
    assert str(raised.value).endswith(named)


@pytest.mark.parametrize("raw", [*NOT_NAMES[:6], ["out_of_context", 3]], ids=shown)
def test_questions_refuses_what_is_not_a_question_name_or_a_collection_of_them(raw) -> None:
    with pytest.raises(
        OptionError, match="^call keyword argument: questions: expected a question name or a collection"
    ):
        Settings().override({"questions": raw}, "call keyword argument")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("fabricated", {Verdict.FABRICATED}),
        ("fabricated,contradicted", {Verdict.FABRICATED, Verdict.CONTRADICTED}),
        (["fabricated", "contradicted"], {Verdict.FABRICATED, Verdict.CONTRADICTED}),
        ({"contradicted"}, {Verdict.CONTRADICTED}),
        (frozenset({Verdict.UNSUPPORTED}), {Verdict.UNSUPPORTED}),
        (Verdict.FABRICATED, {Verdict.FABRICATED}),
        ((name for name in ["fabricated"]), {Verdict.FABRICATED}),
    ],
)
def test_fail_on_still_takes_names_and_collections_of_names(raw, expected) -> None:
    assert Settings().override({"fail_on": raw}, "call").fail_on == expected


def test_a_mapping_or_bytes_in_a_real_test_fails_it_naming_the_keyword_not_the_verdict(suite, no_typesafe_env):
    # The planted fabricated quote of the cookbook: with fail_on read as the dict's keys it failed as
    # fabricated, the user having written {"fabricated": False}.
    suite.makepyfile(
        test_app="""
        import pytest
        from cookbook import SOURCE, pick

        @pytest.mark.citecheck(fail_on={"fabricated": False})
        def test_marker_dict(citecheck):
            citecheck.assert_supported(pick("sig_reporting"), SOURCE)

        def test_call_bytes(citecheck):
            citecheck.assert_supported(pick("sig_reporting"), SOURCE, fail_on=b"fabricated")

        def test_call_questions_dict(citecheck):
            citecheck.assert_supported(pick("clock_skew"), SOURCE, questions={"out_of_context": False})
        """
    )
    result = suite.runpytest()
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines(
        [
            "*OptionError: *fail_on: expected a verdict name or a collection of verdict names*, "
            "got a dict*{'fabricated': False}*",
            "*OptionError: assert_citations_supported() keyword argument: fail_on: expected a verdict name or a "
            "collection of verdict names*, got bytes b'fabricated'*",
            "*OptionError: assert_citations_supported() keyword argument: questions: expected a question name or a "
            "collection of question names*, got a dict*",
        ]
    )
    assert "CitationsNotSupported" not in result.stdout.str()
    assert "unknown verdict 102" not in result.stdout.str()

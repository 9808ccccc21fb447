"""An elision that puts one number in another's place, or drops a condition (hunt-wrong-passes-5).

The rule for quotes already made a quote ``altered`` when its elision removed a negation, ``unless``,
``except`` or ``without``. Two more ways an elided quote says what its passage does not passed on
main (recorded against the loopback Jev, which supports the claim; green):

- **a number read in another's place**: "Refunds are granted within … 90 days of delivery" cut from
  "Refunds are granted within 30 days of purchase; exchanges are accepted within 90 days of delivery"
  reads 90 days for refunds, where the section says 30; and "within 30 … days of delivery" reads the
  refunds' 30 as the exchanges' term;
- **a condition dropped**: "only if", "provided that" and their like make what they stand in a
  condition, as "unless" does; an elision that removes one (or cuts one in two: "paid only … the item
  is returned unopened" reads "paid only the item", the "if" gone) makes a conditional statement read
  as an unconditional one. The GNU GPL 3's section 4 grants verbatim copies "provided that you
  conspicuously and appropriately publish on each copy an appropriate copyright notice".

Each is ``altered`` now and fails naming what the elision removed, before any request. A number
dropped with no number in its place ("within … days of purchase": the quote says no number) and a
bare "if" in a gap are still found: the quote reads no other number, and "if" is in too many gaps a
quote may rightly skip.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import assert_elisions_altered, policy_suite

from pytest_citecheck import Source
from pytest_citecheck._locate.locator import QuoteLocator

GPL_SECTION_4 = (Path(__file__).parent.parent / "data" / "gpl-3.0.txt").read_text()
GPL_SECTION_4 = GPL_SECTION_4[GPL_SECTION_4.index("  4. Conveying Verbatim Copies.") :]
GPL_SECTION_4 = GPL_SECTION_4[: GPL_SECTION_4.index("  5. Conveying Modified Source Versions.")]

SECTIONS = {
    "terms": "Refunds are granted within 30 days of purchase; exchanges are accepted within 90 days of delivery.",
    "condition": "Refunds are paid only if the item is returned unopened within 30 days.",
    "condition-fr": "Le remboursement est accordé à condition que le ticket soit présenté dans les 30 jours.",
    "gpl-4": GPL_SECTION_4,
}

CASES = [
    # (id, section, quote, what the failure names among the words the elision removed)
    ("number-after", "terms", "Refunds are granted within \u2026 90 days of delivery", "30 days of purchase*"),
    ("number-before", "terms", "Refunds are granted within 30 \u2026 days of delivery", "*accepted within 90"),
    ("only-if", "condition", "Refunds are paid \u2026 the item is returned unopened", "only if"),
    ("only-cut", "condition", "Refunds are paid only \u2026 the item is returned unopened", "if"),
    (
        "a-condition-que",
        "condition-fr",
        "Le remboursement est accordé \u2026 le ticket soit présenté",
        "à condition que",
    ),
    (
        "gpl-provided-that",
        "gpl-4",
        "You may convey verbatim copies of the Program's source code as you receive it, in any medium, "
        "\u2026 keep intact all notices stating that this License",
        "provided that*",
    ),
]


def test_an_elision_that_swaps_a_number_or_drops_a_condition_is_altered(pytester, jev_server):
    assert_elisions_altered(pytester, jev_server, SECTIONS, CASES)


@pytest.mark.parametrize(
    ("section", "quote"),
    [
        ("terms", "Refunds are granted within \u2026 days of purchase"),  # no number read in the 30's place
        ("terms", "Refunds are granted within 30 days \u2026 within 90 days of delivery"),  # nothing swapped
        ("condition", "Refunds are paid only if \u2026 returned unopened within 30 days"),  # the condition kept
        ("gpl-4", "You may convey verbatim copies of the Program's source code \u2026 in any medium"),
    ],
    ids=["number-dropped", "numbers-kept", "condition-kept", "gpl-before-the-condition"],
)
def test_elisions_that_keep_the_numbers_and_conditions_are_found(pytester, jev_server, section, quote):
    pytester.makepyfile(test_policy=policy_suite(pytester, SECTIONS, [("kept", section, quote)]))
    pytester.runpytest("-p", "no:randomly", "--citecheck-record-mode=once").assert_outcomes(passed=1)


def test_a_bare_if_or_a_list_of_numbers_skipped_is_what_the_rule_says() -> None:
    """The limits, as the docs state them: a gap holding a bare "if" is skipped freely; a gap over a list
    of numbers, with a number on either side, reads one number in another's place and is altered."""
    locator = QuoteLocator(
        Source(
            sections={
                "if": "The client retries the request if the server is busy, and logs every attempt it makes.",
                "list": "Python versions 3.9, 3.10, 3.11, 3.12 and 3.13 are supported by this release.",
            }
        )
    )
    skipped_if = locator.find("The client retries the request \u2026 and logs every attempt")
    assert skipped_if is not None and skipped_if.turning_words == []
    skipped_list = locator.find("Python versions 3.9, \u2026 3.13 are supported")
    assert skipped_list is not None and skipped_list.turning_words == ["3.10,", "3.11,", "3.12"]

"""A superscript in a Markdown or reStructuredText source reads raised, as in HTML (hunt-wrong-passes-5).

hunt-wrong-passes-4 F2 made the HTML reader read ``2<sup>32</sup>`` as 2³², not the 232 it joined it
into. The displayed form of a Markdown or reStructuredText source (what step 1 searches beside the
section as written) still took the markup out and joined the digits: Node.js's ``buffer.md``
(Debian's ``nodejs``) says "On 64-bit architectures, this value currently is 2<sup>32</sup> (about 4
GiB)", displayed "… is 232 (about 4 GiB)"; CPython's ``os.rst`` (``python3.11-doc``) says "a maximum
value of 2\\ :sup:`64`\\ -\\ 2", displayed "264-2". A quote saying 232 or 264-2 was ``found``, the
loopback Jev supported the claim and the test passed. The displayed form reads them 2³² and 2⁶⁴-2 now
(after a digit, content of digits and signs, as ``html.py`` reads a ``<sup>``), so such a quote is
``fabricated``; the quote as written, or as shown (2³²), is found.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import quotes_of_a_page

from pytest_citecheck import Source
from pytest_citecheck._locate.locator import QuoteLocator
from pytest_citecheck.testing import JevServer

DATA = Path(__file__).parent.parent / "data"
BUFFER = (DATA / "node-buffer-constants-excerpt.md").read_text()
EVENTFD = (DATA / "python-os-eventfd-excerpt.rst").read_text()

CASES = [
    # (file, text, the number a reader does not see, quotes a reader does)
    (
        "buffer.md",
        BUFFER,
        {"joined": "On 64-bit architectures, this value currently is 232 (about 4 GiB)"},
        {
            "raised": "On 64-bit architectures, this value currently is 2\u00b3\u00b2 (about 4 GiB)",
            "as-written": "this value currently is 2<sup>32</sup> (about 4 GiB)",
        },
    ),
    (
        "os.rst",
        EVENTFD,
        {"joined": "unsigned 64 bit integer with a maximum value of 264-2"},
        {"raised": "unsigned 64 bit integer with a maximum value of 2\u2076\u2074-2"},
    ),
]


@pytest.mark.parametrize(("name", "text", "joined", "shown"), CASES, ids=["markdown", "rst"])
def test_a_quote_that_joins_a_superscript_into_the_number_is_fabricated(
    pytester: pytest.Pytester,
    jev_server: JevServer,
    name: str,
    text: str,
    joined: dict[str, str],
    shown: dict[str, str],
) -> None:
    rows = quotes_of_a_page(pytester, text, joined, "failed", name=name)
    assert [(row["status"], row["verdict"]) for row in rows] == [("missing", "fabricated")]
    rows = quotes_of_a_page(pytester, text, shown, "passed", name=name)
    assert {row["status"] for row in rows} == {"found"}


def test_only_digits_and_signs_after_a_digit_are_raised() -> None:
    """As in HTML: ``1<sup>st</sup>`` and ``x<sup>2</sup>`` read as written; ``10<sup>-6</sup>`` is 10⁻⁶."""
    markdown = Source.from_text(
        "# Limits\n\nThe 1<sup>st</sup> try waits 10<sup>-6</sup> s; the area is x<sup>2</sup>.\n", format="markdown"
    )
    locator = QuoteLocator(markdown)
    assert locator.find("The 1st try waits 10\u207b\u2076 s; the area is x2") is not None
    assert locator.find("try waits 10-6 s") is None
    rst = Source.from_text("Limits\n======\n\nThe area is *x*\\ :sup:`2` and 10\\ :sup:`-6` s.\n", format="rst")
    locator = QuoteLocator(rst)
    assert locator.find("The area is x2 and 10\u207b\u2076 s.") is not None
    assert locator.find("The area is x2 and 10-6 s.") is None

"""The HTML report: written by a real run, self-contained, and checked in a real headless Chromium.

The browser test drives Debian's ``chromium`` through ``/usr/bin/chromedriver`` with Selenium (the
``browser`` fixture in conftest.py). Where Chromium is not installed it skips with the reason, except
in CI (``CI`` set), where it fails: the report's rendering is only tested if the browser runs.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_citecheck._report.html import render_html
from pytest_citecheck._report.run_report import Report
from pytest_citecheck.testing import JevServer

TEST_FILE = """
from pytest_citecheck import check_citations
from cookbook import SOURCE, CITATIONS

def test_all_cookbook_citations():
    check_citations(list(CITATIONS.values()), SOURCE)
"""


def normalized(text: str) -> str:
    return " ".join(text.replace("\u201c", '"').replace("\u201d", '"').split())


@pytest.fixture
def html_report(suite: pytest.Pytester, jev_server: JevServer, inner_ini: str) -> Path:
    """The HTML report of a real run over the cookbook's eight citations, one of them decided by a human."""
    suite.makepyfile(test_cookbook=TEST_FILE)
    # A pinned model, as TypeSafe advises (and the plugin warns otherwise).
    suite.makeini(inner_ini + "citecheck_model = jev-1.12\n")
    suite.runpytest("--citecheck-record-mode=once", "--citecheck-json=report.json").assert_outcomes(passed=1)
    report = json.loads((suite.path / "report.json").read_text())
    row = next(r for r in report["results"] if r["id"] == "iat_future")
    from pytest_citecheck._review.decisions import Reviews

    reviews = Reviews.load(suite.path / "citecheck-reviews.json")
    reviews.record(row, "contradicted", by="Ada", note="4.1.6 says nothing of rejecting; RFC 7519 leaves it to the app")
    reviews.save()
    result = suite.runpytest("--citecheck-record-mode=rewrite", "--citecheck-html=out/report.html")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["HTML report: out/report.html"])
    return suite.path / "out" / "report.html"


def test_the_report_is_one_self_contained_page(html_report: Path) -> None:
    page = html_report.read_text()
    # No network and no external assets: nothing is loaded from anywhere but the page itself.
    assert not re.search(r'\b(?:src|href)\s*=\s*"(?!#|data:)', page)
    assert "@import" not in page and "url(" not in page
    assert page.count('<article class="citation') == 8
    assert '<span class="tag human">decided by a human</span>' in page
    assert "Ada overrode Jev's unsupported with <strong>contradicted</strong>" in page
    assert page.count("<mark>") == 6  # six quotes are in the source; the two claim-only / fabricated have none


def test_the_page_escapes_what_the_app_wrote() -> None:
    row = {
        "test": "t::x",
        "id": "<script>",
        "status": "found",
        "section": "1",
        "verdict": "verified",
        "confidence": 0.9,
        "auto": True,
        "claim": "a <b>bold</b> & claim",
        "quote": "x<y",
        "span": [0, 3],
        "auto_accept": 0.8,
        "section_text": "x<y and more",
        "review_key": "k",
        "decision": None,
        "stale_decision": None,
    }
    page = render_html(Report([row]))
    assert page.count("<script>") == 1 and "Citation &lt;script&gt;" in page
    assert "a &lt;b&gt;bold&lt;/b&gt; &amp; claim" in page
    assert "<mark>x&lt;y</mark> and more" in page


def test_the_report_renders_in_chromium_with_the_quoted_passages_highlighted(html_report: Path, browser: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    browser.get(html_report.as_uri())
    assert browser.find_element(By.TAG_NAME, "h1").text == "Citation check"
    errors = [entry for entry in browser.get_log("browser") if entry["level"] in ("SEVERE", "WARNING")]
    assert errors == [], errors

    rows = {row["id"]: row for row in json.loads((html_report.parent.parent / "report.json").read_text())["results"]}
    cards = browser.find_elements(By.CSS_SELECTOR, "article.citation")
    assert len(cards) == 8
    highlighted = 0
    for card in cards:
        citation_id = card.find_element(By.TAG_NAME, "h3").text.split()[1]
        marks = card.find_elements(By.TAG_NAME, "mark")
        row = rows[citation_id]
        if row["span"] is None:
            assert marks == []
            continue
        (mark,) = marks
        # What the reader sees highlighted is exactly the quote (RFC line breaks aside).
        assert normalized(mark.get_attribute("textContent")) == normalized(row["quote"])
        highlighted += 1
    assert highlighted == 6

    # The confidence bar has a text equivalent naming the threshold.
    bar = browser.find_element(By.CSS_SELECTOR, "#citation-6 ~ dl .bar")
    assert re.fullmatch(r"confidence 0\.\d\d, below the auto_accept threshold 0\.80", bar.get_attribute("aria-label"))

    # Keyboard only: the skip link comes first, then the filter checkbox; Space filters the list.
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.TAB)
    assert browser.switch_to.active_element.text == "Skip to the citations"
    toggle = browser.find_element(By.ID, "only-review")
    while browser.switch_to.active_element != toggle:
        browser.switch_to.active_element.send_keys(Keys.TAB)
    toggle.send_keys(Keys.SPACE)
    visible = [card.find_element(By.TAG_NAME, "h3").text.split()[1] for card in cards if card.is_displayed()]
    assert visible == ["pii_encryption"]  # iat_future, also below auto_accept, was decided by Ada
    assert browser.find_element(By.ID, "filter-status").text == "1 citation shown"
    assert browser.get_log("browser") == []


def test_approximate_matches_closest_passages_and_stale_decisions_are_shown() -> None:
    base = {
        "test": "t::x",
        "auto": True,
        "auto_accept": 0.8,
        "decision": None,
        "stale_decision": None,
        "review_key": None,
    }
    approx = {
        **base,
        "id": "near",
        "status": "found-approx",
        "section": "2",
        "verdict": "verified",
        "confidence": 0.9,
        "claim": "c",
        "quote": "seconds since epoch",
        "span": [0, 19],
        "section_text": "seconds since  epoch.",
        "similarity": 0.93,
        "review_key": "k1",
    }
    fabricated = {
        **base,
        "id": "ghost",
        "status": "missing",
        "section": None,
        "verdict": "fabricated",
        "confidence": None,
        "claim": "c",
        "quote": "made up",
        "span": None,
        "closest": {"section": "4.1.4", "span": [3, 20], "text": "MUST NOT be accepted", "similarity": 0.61},
    }
    stale = {
        **base,
        "id": "old",
        "status": "found",
        "section": "3",
        "verdict": "unsupported",
        "confidence": 0.3,
        "auto": False,
        "claim": "c",
        "quote": "q",
        "span": [0, 1],
        "section_text": "q",
        "review_key": "k2",
        "stale_decision": {"by": "Ada", "verdict": "verified", "at": "2026-01-01T00:00:00Z"},
    }
    page = render_html(Report([approx, fabricated, stale]))
    assert '<span class="tag approx">approximate match (0.93)</span>' in page
    assert "<dt>Closest passage</dt><dd>In section 4.1.4 (similarity 0.61): <q>MUST NOT be accepted</q></dd>" in page
    assert '<span class="tag stale">stale decision</span>' in page and "no longer applies" in page
    assert 'data-needs-review="true"' in page  # a stale decision does not settle the citation


def test_without_chromium_the_browser_test_skips_locally_and_fails_in_ci(
    monkeypatch: pytest.MonkeyPatch, chromium_or_skip: Callable[[], None]
) -> None:
    monkeypatch.setattr(shutil, "which", lambda path: None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="not installed"):
        chromium_or_skip()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI is set, so the browser test must run"):
        chromium_or_skip()

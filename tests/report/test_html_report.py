"""The HTML report: written by a real run, self-contained, and checked in a real headless Chromium.

The page carries its citations as data (each section text once) and draws a page of cards at a time
with a script, so what it shows is read where it is drawn: in a browser. The browser tests drive
Debian's ``chromium`` through ``/usr/bin/chromedriver`` with Selenium (the ``browser`` fixture in
conftest.py). Where Chromium is not installed they skip with the reason, except in CI (``CI`` set),
where they fail: the report's rendering is only tested if the browser runs.

At 20,000 citations (real rows of a real run, moved over RFC 7519's sections) the page is at most
1 KB per citation, each section's text is in it once, and Chromium shows page 1 of 400, filters,
and turns pages. How long Chromium takes to open it is printed (``-s``), never asserted.
"""

from __future__ import annotations

import json
import re
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support import RFC7519, html_report_cards, html_report_data

from pytest_citecheck import Source
from pytest_citecheck._report.html import render_html, script_json, write_html
from pytest_citecheck._report.row import ReportRow
from pytest_citecheck._report.run_report import Report
from pytest_citecheck.testing import JevServer

TEST_FILE = """
from pytest_citecheck import check_citations
from cookbook import SOURCE, CITATIONS

def test_all_cookbook_citations():
    check_citations(list(CITATIONS.values()), SOURCE)
"""

# What an app (or a model) could put in a claim, an id or a section: markup, a script's end, a comment.
HOSTILE = '</script><script>window.pwned = 1</script><img src=x onerror="window.pwned = 2"> & <!-- \u2028'
AT_SCALE = 20_000


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


def at_scale(real: list[dict[str, Any]], count: int = AT_SCALE) -> list[dict[str, Any]]:
    """``count`` rows made from a real run's rows: each a real row (verdict, confidence, decision,
    closest passage...) under its own id, five to a test, and, where it quoted a section, quoting a
    hundred characters of one of RFC 7519's sections instead. The first row's claim is hostile."""
    sections = [(name, text) for name, text in Source.from_file(RFC7519).sections.items() if len(text) > 150]
    rows: list[dict[str, Any]] = []
    quoting = 0
    for n in range(count):
        row = dict(real[n % len(real)])
        row.update(test=f"tests/test_answers.py::test_answer[{n // 5}]", id=f"{row['id']}-{n}")
        row["claim"] = f"{row['claim']} (answer {n})"
        if row.get("span"):
            name, text = sections[quoting % len(sections)]
            quoting += 1
            start = (n * 37) % (len(text) - 100)
            row.update(section=name, section_text=text, quote=text[start : start + 100], span=[start, start + 100])
        rows.append(row)
    rows[0]["claim"] = HOSTILE
    return rows


@pytest.fixture
def real_rows(xdist_run: Any) -> list[dict[str, Any]]:
    """The rows of a real run (the shared xdist run: found, fabricated, reviewed and failed citations)."""
    rows: list[dict[str, Any]] = json.loads((xdist_run.path / "r.json").read_text())["results"]
    return rows


def test_the_report_is_one_self_contained_page_drawn_in_chromium(html_report: Path, browser: Any) -> None:
    page = html_report.read_text()
    # No network and no external assets: nothing is loaded from anywhere but the page itself.
    assert not re.search(r'\b(?:src|href)\s*=\s*"(?!#|data:)', page)
    assert "@import" not in page and "url(" not in page
    texts, cards = html_report_data(html_report)
    assert len(cards) == 8
    drawn = html_report_cards(browser, html_report)
    assert len(drawn) == 8
    assert '<span class="tag human">decided by a human</span>' in drawn["iat_future"]
    assert "Ada overrode Jev's unsupported with <strong>contradicted</strong>" in drawn["iat_future"]
    assert sum(card.count("<mark>") for card in drawn.values()) == 6  # the claim-only and fabricated have none


def test_the_report_renders_in_chromium_with_the_quoted_passages_highlighted(html_report: Path, browser: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    browser.get(html_report.as_uri())
    assert browser.find_element(By.TAG_NAME, "h1").text == "Citation check"
    errors = [entry for entry in browser.get_log("browser") if entry["level"] in ("SEVERE", "WARNING")]
    assert errors == [], errors
    assert browser.find_element(By.ID, "filter-status").text == "Page 1 of 1: citations 1–8 of 8"

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

    # Keyboard only: the skip link comes first, then the filters; Space on the checkbox filters the list.
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.TAB)
    assert browser.switch_to.active_element.text == "Skip to the citations"
    toggle = browser.find_element(By.ID, "only-review")
    while browser.switch_to.active_element != toggle:
        browser.switch_to.active_element.send_keys(Keys.TAB)
    toggle.send_keys(Keys.SPACE)
    visible = [
        card.find_element(By.TAG_NAME, "h3").text.split()[1]
        for card in browser.find_elements(By.CSS_SELECTOR, "article.citation")
    ]
    assert visible == ["pii_encryption"]  # iat_future, also below auto_accept, was decided by Ada
    assert browser.find_element(By.ID, "filter-status").text == (
        "Page 1 of 1: citations 1–1 of 1 matching the filters (8 in all)"
    )
    assert browser.get_log("browser") == []


def test_hostile_text_is_data_and_is_shown_as_text(browser: Any, tmp_path: Path) -> None:
    row = {
        "test": f"t.py::test[{HOSTILE}]",
        "id": HOSTILE,
        "status": "found",
        "section": HOSTILE,
        "verdict": "verified",
        "confidence": 0.9,
        "auto": True,
        "claim": HOSTILE,
        "quote": "x<y",
        "span": [0, 3],
        "auto_accept": 0.8,
        "section_text": f"x<y and {HOSTILE}",
        "review_key": "k",
        "decision": None,
        "stale_decision": None,
    }
    page = tmp_path / "report.html"
    write_html(Report([row]), page)
    markup = page.read_text(encoding="utf-8")
    assert markup.count("</script>") == 3 and markup.count("<script") == 3  # the two data blocks and the script
    assert "<img" not in markup and "<!--" not in markup
    drawn = html_report_cards(browser, page)
    assert list(drawn) == [HOSTILE]
    assert browser.execute_script("return window.pwned") is None
    assert browser.execute_script("return document.querySelectorAll('#cards img, #cards script').length") == 0
    claim = browser.execute_script(
        "return document.querySelector('#citation-1 ~ dl dt:nth-of-type(3) + dd').textContent"
    )
    assert claim == HOSTILE
    assert "<mark>x&lt;y</mark> and &lt;/script&gt;" in drawn[HOSTILE]
    # A lone surrogate (a JSON report's "\\ud800" reads as one) is written as its escape, and read back.
    write_html(Report([{**row, "section_text": "x<y \ud800"}]), page)
    assert "x\\u003cy \\ud800" in page.read_text(encoding="utf-8")
    browser.get(page.as_uri())
    assert browser.execute_script("return document.querySelector('pre').textContent === 'x<y \\ud800'") is True


def test_approximate_matches_closest_passages_and_stale_decisions_are_shown(browser: Any, tmp_path: Path) -> None:
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
    page = tmp_path / "report.html"
    write_html(Report([approx, fabricated, stale, stale]), page)  # "old" checked twice
    cards = html_report_cards(browser, page)
    assert '<span class="tag approx">approximate match (0.93)</span>' in cards["near"]
    assert (
        "<dt>Closest passage</dt><dd>In section 4.1.4 (similarity 0.61): <q>MUST NOT be accepted</q></dd>"
        in cards["ghost"]
    )
    assert '<span class="tag stale">stale decision</span>' in cards["old"] and "no longer applies" in cards["old"]
    assert 'data-needs-review="true"' in cards["old"]  # a stale decision does not settle the citation
    assert '<span class="tag">checked 2 times: the last check is shown</span>' in cards["old"]


def test_at_20000_citations_the_page_is_at_most_1_kb_a_citation_with_each_section_once(
    real_rows: list[dict[str, Any]], tmp_path: Path
) -> None:
    rows = at_scale(real_rows)
    page = tmp_path / "report.html"
    write_html(Report(rows), page)
    size = page.stat().st_size
    print(f"\nHTML report of {AT_SCALE:,} citations: {size:,} bytes, {size / AT_SCALE:.0f} bytes a citation")
    assert size <= 1024 * AT_SCALE
    markup = page.read_text(encoding="utf-8")
    quoted = {row["section_text"] for row in rows if row.get("span")}
    assert len(quoted) > 35  # RFC 7519's sections, each quoted by hundreds of citations
    for text in quoted:
        assert markup.count(script_json(text)) == 1
    texts, cards = html_report_data(page)
    assert len(cards) == AT_SCALE and sum(isinstance(entry, list) for entry in texts) == len(quoted)


def test_at_20000_citations_chromium_pages_and_filters(
    real_rows: list[dict[str, Any]], tmp_path: Path, browser: Any
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    rows = at_scale(real_rows)
    page = tmp_path / "report.html"
    write_html(Report(rows), page)
    started = time.perf_counter()
    browser.get(page.as_uri())  # returns once the page has loaded and its script has drawn page 1
    opened = time.perf_counter() - started
    loaded = browser.execute_script("return performance.getEntriesByType('navigation')[0].loadEventEnd")
    print(f"\nChromium opened the {AT_SCALE:,}-citation report in {opened:.2f} s (load event at {loaded / 1000:.2f} s)")
    assert browser.get_log("browser") == []

    def status() -> str:
        return str(browser.find_element(By.ID, "filter-status").text)

    def shown() -> list[str]:
        return list(
            browser.execute_script(
                "return Array.from(document.querySelectorAll('#cards h3'), function (h) { return h.id; })"
            )
        )

    assert status() == "Page 1 of 400: citations 1–50 of 20,000"
    assert browser.find_element(By.CSS_SELECTOR, ".pager .page-of").text == "Page 1 of 400"
    assert shown() == [f"citation-{n}" for n in range(1, 51)]
    # The hostile claim of the first citation is shown as text, and nothing of it ran.
    assert browser.execute_script("return window.pwned") is None
    claim = browser.execute_script(
        "return document.querySelector('#citation-1 ~ dl dt:nth-of-type(3) + dd').textContent"
    )
    assert claim == HOSTILE

    # Next page, and back.
    browser.find_element(By.CSS_SELECTOR, ".pager .page-next").click()
    assert status() == "Page 2 of 400: citations 51–100 of 20,000"
    assert shown() == [f"citation-{n}" for n in range(51, 101)]
    browser.find_element(By.CSS_SELECTOR, ".pager .page-prev").click()
    assert shown()[0] == "citation-1"

    # A verdict: exactly the contradicted citations, in order, a page of them.
    contradicted = [n for n, row in enumerate(rows, start=1) if row["verdict"] == "contradicted"]
    Select(browser.find_element(By.ID, "filter-verdict")).select_by_value("contradicted")
    pages = -(-len(contradicted) // 50)
    assert (
        status() == f"Page 1 of {pages}: citations 1–50 of {len(contradicted):,} matching the filters (20,000 in all)"
    )
    assert shown() == [f"citation-{n}" for n in contradicted[:50]]
    assert browser.execute_script("return document.querySelectorAll('#cards article:not(.contradicted)').length") == 0

    # And a test's name: its citations that are contradicted; then all five of its citations.
    test = rows[contradicted[100] - 1]["test"].split("::")[1]  # test_answer[N]
    in_test = [n for n, row in enumerate(rows, start=1) if row["test"].endswith(f"::{test}")]
    search = browser.find_element(By.ID, "filter-text")
    search.send_keys(test)
    assert shown() == [f"citation-{n}" for n in in_test if n in contradicted]
    Select(browser.find_element(By.ID, "filter-verdict")).select_by_value("")
    assert len(in_test) == 5 and shown() == [f"citation-{n}" for n in in_test]
    # Needs review, with the search cleared: the citations whose action is review.
    search.clear()
    search.send_keys(" ")  # an input event; the search trims it away
    browser.find_element(By.ID, "only-review").click()
    review = [n for n, row in enumerate(rows, start=1) if ReportRow.from_json(row).action == "review"]
    assert status().endswith(f"of {len(review):,} matching the filters (20,000 in all)")
    assert shown() == [f"citation-{n}" for n in review[:50]]
    assert browser.get_log("browser") == []


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


def test_with_scripts_off_the_page_still_counts_its_citations() -> None:
    rows = [
        {"test": "t::x", "id": f"c{n}", "status": "found", "verdict": "verified", "confidence": 0.9, "auto": True}
        for n in range(3)
    ]
    page = render_html(Report(rows), generated="2026-01-01 00:00 UTC")
    assert "3 citations checked in 1 test" in page
    assert '<span class="n">3</span>the section supports the claim' in page
    assert "<noscript><p>This page lists its 3 citations with a script" in page
    # The filters and pager are shown by the script only: without it they would do nothing.
    assert re.search(r'<form class="controls" id="filters"[^>]* hidden data-needs-script>', page)


def test_with_scripts_off_chromium_shows_neither_the_filters_nor_the_pager(browser: Any, tmp_path: Path) -> None:
    # Found opening a report in Chromium with JavaScript off: the form and both pagers carried
    # `hidden`, but the page's own `display:flex` for .controls and .pager overrode it, so filters
    # and page buttons that do nothing were drawn under the "scripts are off" note.
    from selenium.webdriver.common.by import By

    rows = [
        {"test": "t::x", "id": f"c{n}", "status": "found", "verdict": "verified", "confidence": 0.9, "auto": True}
        for n in range(3)
    ]
    page = tmp_path / "report.html"
    write_html(Report(rows), page)
    browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    try:
        browser.get(page.as_uri())
        shown = {
            selector: [node.is_displayed() for node in browser.find_elements(By.CSS_SELECTOR, selector)]
            for selector in ("#filters", "nav.pager", "#filter-verdict", ".page-next")
        }
        note = browser.find_element(By.TAG_NAME, "body").text
    finally:
        browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
    assert shown == {
        "#filters": [False],
        "nav.pager": [False, False],
        "#filter-verdict": [False],
        ".page-next": [False, False],
    }
    assert "This page lists its 3 citations with a script, and scripts are off." in note
    # With scripts on, the same page shows them.
    browser.get(page.as_uri())
    assert browser.find_element(By.ID, "filters").is_displayed()
    assert all(node.is_displayed() for node in browser.find_elements(By.CSS_SELECTOR, "nav.pager"))

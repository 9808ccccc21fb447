"""A real Claude web-search answer, as the anthropic SDK returns it (issue 23, found 8 and 9, item 6).

``tests/data/payloads/claude_web_search_weather.json`` is a ``claude-sonnet-4`` answer recorded by
pydantic-ai's test suite (the README there says where): nine ``web_search_result_location`` citations of
three pages, each a bullet of its own between headings, and a closing sentence that cites nothing.
The pages themselves are encrypted in the recording: the corpus holds, for each URL, the passages
Claude quoted from it (one truncated by Claude with "…", as web search snippets are).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from anthropic.types import Message

from pytest_citecheck import CitationsNotSupported, Corpus, Source, Status
from pytest_citecheck._citations.adapt import adapt_answer
from pytest_citecheck.testing import JevServer

RECORDED = Path(__file__).resolve().parent.parent / "data" / "payloads" / "claude_web_search_weather.json"
ACCUWEATHER = "https://www.accuweather.com/en/us/san-francisco/94103/weather-forecast/347629"
CONDITIONS = "https://www.wunderground.com/weather/us/ca/san-francisco"
HOURLY = "https://www.wunderground.com/hourly/us/ca/san-francisco"
SUMMARY = (
    "Overall, it's a pleasant day in San Francisco with mild temperatures and mostly sunny conditions, "
    "though the air quality is poor, so sensitive individuals should limit outdoor activities."
)


def message() -> Message:
    return Message.model_validate(json.loads(RECORDED.read_text(encoding="utf-8")))


def pages() -> Corpus:
    """The three pages, keyed by URL as a reader writes it (the scheme and host in capitals, a slash added)."""
    texts = {
        "HTTPS://WWW.AccuWeather.com/en/us/san-francisco/94103/weather-forecast/347629/": (
            "San Francisco, CA Weather Today WinterCast Local {stormName} Tracker Hourly Daily Radar MinuteCast® "
            "Monthly Air Quality Health & Activities · News · Features\n\nCurrent weather: 66°F, clear. Wind W 3 mph, "
            "gusts 5 mph.\n\nThe air has reached a high level of pollution and is unhealthy for sensitive groups. "
        ),
        CONDITIONS: (
            "Radar · Satellite · WunderMap|Nexrad · TonightMon 09/15 Low · 57 °F · 8% Precip. / 0.00 °in Clear to "
            "partly cloudy. Low 57F. Winds W at 10 to 20 mph. TomorrowTue 09/16 High · 78 °F · 8% Precip. / 0.00 °in "
            "Partly cloudy skies. High 78F. Winds W at 10 to 20 mph."
        ),
        HOURLY: "Some clouds in the morning will give way to mainly sunny skies for the afternoon.",
    }
    return Corpus({url: Source(sections={"page": text}, name=url) for url, text in texts.items()})


def test_each_bullet_is_a_claim_with_its_quote_and_the_summary_cites_nothing() -> None:
    adapted = adapt_answer(message(), source=pages())
    assert [(c.claim, c.document) for c in adapted.citations] == [
        ("Temperature: 66°F with clear skies", "HTTPS://WWW.AccuWeather.com/en/us/san-francisco/94103/weather-forecast/347629/"),
        ("Wind: W at 3 mph with gusts up to 5 mph", "HTTPS://WWW.AccuWeather.com/en/us/san-francisco/94103/weather-forecast/347629/"),
        ("Air quality is poor and unhealthy for sensitive groups", "HTTPS://WWW.AccuWeather.com/en/us/san-francisco/94103/weather-forecast/347629/"),
        ("High: 78°F with partly cloudy skies", CONDITIONS),
        ("Winds W at 10 to 20 mph", CONDITIONS),
        ("8% chance of precipitation", CONDITIONS),
        ("Some clouds in the morning will give way to mainly sunny skies for the afternoon", HOURLY),
        ("Low: 57°F with clear to partly cloudy conditions", CONDITIONS),
        ("Winds W at 10 to 20 mph", CONDITIONS),
    ]  # fmt: skip
    assert adapted.citations[0].quote.endswith("· News · F...")  # Claude's own truncation of the snippet
    # The lead-in, the bold headings and the bullets' dashes are layout; the closing sentence is a claim.
    assert (adapted.uncited, adapted.invalid) == ([SUMMARY], {})


def test_every_quote_is_found_on_the_page_its_url_names(direct_checker: Any) -> None:
    server = JevServer().start()
    try:
        checker = direct_checker(server)
        results = checker.check(message(), pages())
        with pytest.raises(CitationsNotSupported, match=r"1 sentence of the answer cites nothing"):
            checker.assert_supported(message(), pages(), require_cited_sentences=True)
    finally:
        server.stop()
    assert {r.status for r in results} == {Status.FOUND}
    assert [r.document.split("/")[2].lower() for r in results] == ["www.accuweather.com"] * 3 + [
        "www.wunderground.com"
    ] * 6

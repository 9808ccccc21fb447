"""The HTML report at 20,000 citations: its size per citation (goal: at most 1 KB), and how long
headless Chromium takes to open it and draw its first page (information only: a browser's wall time
on a shared machine is noise, not a goal).

The rows are shaped like a real run's: the RFC 7519 example's claims, each quoting a hundred
characters of one of RFC 7519's sections (``examples/rfc7519``), five citations to a test, verdicts
mixed as the example's are. ``tests/report/test_html_report.py`` asserts the same size bound on rows
of a real run, and that Chromium pages and filters the page.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import Row, secs

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "rfc7519"
# (verdict, confidence, auto) in the example's proportions: four verified, two below auto_accept, two failing.
VERDICTS = [
    ("verified", 0.93, True),
    ("verified", 0.94, True),
    ("unsupported", 0.28, False),
    ("contradicted", 0.97, True),
    ("verified", 0.95, True),
    ("contradicted", 0.55, False),
    ("fabricated", None, True),
    ("verified", 0.9, True),
]


def rows(count: int) -> list[dict[str, Any]]:
    from pytest_citecheck import Source

    sections = [
        (name, text) for name, text in Source.from_file(EXAMPLE / "rfc7519.txt").sections.items() if len(text) > 150
    ]
    citations = json.loads((EXAMPLE / "citations.json").read_text(encoding="utf-8"))
    made = []
    for n in range(count):
        citation, (verdict, confidence, auto) = citations[n % len(citations)], VERDICTS[n % len(VERDICTS)]
        name, text = sections[n % len(sections)]
        start = (n * 37) % (len(text) - 100)
        row = {"test": f"tests/test_answers.py::test_answer[{n // 5}]", "id": f"{citation['id']}-{n}"}
        row |= {"status": "found", "section": name, "verdict": verdict, "confidence": confidence, "auto": auto}
        row |= {
            "claim": f"{citation['claim']} (answer {n})",
            "quote": text[start : start + 100],
            "span": [start, start + 100],
        }
        row |= {"auto_accept": 0.8, "section_text": text, "review_key": f"{n:064x}", "model": "jev-1.12"}
        if verdict == "fabricated":
            row |= {"status": "missing", "section": None, "span": None, "section_text": None}
        made.append(row)
    return made


def _open_seconds(page: Path) -> float | None:
    """Seconds from asking Chromium for ``page`` to its load event (its script has drawn page 1 by then); None without Chromium."""
    if not (shutil.which("/usr/bin/chromium") and shutil.which("/usr/bin/chromedriver")):
        return None
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        return None
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    try:
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    except Exception:  # a browser that does not start is not measured; the size row still stands
        return None
    try:
        driver.get(page.as_uri())  # a first load warms the browser's caches of its own code
        timings = []
        for _ in range(3):
            driver.get("about:blank")
            started = time.perf_counter()
            driver.get(page.as_uri())
            timings.append(time.perf_counter() - started)
        return sorted(timings)[1]
    finally:
        driver.quit()


def run(citations: int = 20_000, log: Any = print) -> list[Row]:
    from pytest_citecheck._report.html import write_html
    from pytest_citecheck._report.run_report import Report

    log(f"html report: {citations:,} citations over RFC 7519's sections")
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "report.html"
        write_html(Report(rows(citations)), page)
        size = page.stat().st_size
        opened = _open_seconds(page)
    per = size / citations
    sized = Row(
        f"HTML report of {citations:,} citations: bytes per citation (each section text once)",
        f"{per:,.0f} B",
        f"{size / 1e6:,.1f} MB in all",
        "",
        "≤ 1,024 B",
        per <= 1024,
        guard_ok=per <= 1024,
        guard="≤ 1,024 B",
        miss=f"+{per - 1024:,.0f} B" if per > 1024 else "",
    )
    note = "" if opened is not None else "Chromium (or Selenium) not installed or did not start: not measured"
    timed = Row(
        f"HTML report of {citations:,} citations: headless Chromium opens it and draws page 1 (median of 3)",
        secs(opened) if opened is not None else "-",
        "",
        "",
        "",
        None,
        note=note,
    )
    return [sized, timed]

"""`citecheck calibrate --html`, and the synthetic example docs/review.md calibrates.

The page is checked like the HTML report: self-contained, escaped, and rendered in a real headless
Chromium (Debian's ``chromium`` through ``/usr/bin/chromedriver``; skipped with the reason where it
is not installed, failed in CI).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support import REPO
from test_calibrate import KNOWN, pattern, write_reviews

from pytest_citecheck._cli import main as citecheck
from pytest_citecheck._review.calibrate import run
from pytest_citecheck._review.calibration_page import render_page

EXAMPLE = REPO / "examples" / "calibration"
# The command docs/review.md runs in examples/calibration, and shows the output of.
DOCS_COMMAND = ["calibrate", "--report", "report.json", "--by", "marker"]


@pytest.fixture
def example_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Path:
    """The page of the synthetic example, written by the command as the docs run it."""
    work = tmp_path / "calibration"
    shutil.copytree(EXAMPLE, work, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.chdir(work)
    assert citecheck([*DOCS_COMMAND, "--html", "out/calibration.html"]) == 0
    assert "HTML: out/calibration.html" in capsys.readouterr().out
    return work / "out" / "calibration.html"


def test_the_page_is_one_self_contained_file_written_atomically(example_page: Path) -> None:
    page = example_page.read_text()
    assert not re.search(r'\b(?:src|href)\s*=\s*"(?!#|data:)', page)
    assert "@import" not in page and "<script" not in page
    assert re.findall(r"url\(([^)]*)\)", page) == ["#plot-overall-clip", "#plot-group-1-clip", "#plot-group-2-clip"]
    assert page.count("<svg") == 3  # all decisions, and the two marker scopes with enough decisions
    assert "auto_accept 0.8 → 0.65: 78% fewer citations to review, upper bound on errors 4.8%" in page
    assert (
        "Paste: <code>@pytest.mark.citecheck(auto_accept=0.66)  (on tests/test_refunds.py::TestRefundPolicy)</code>"
        in page
    )
    # The atomic write leaves no temporary file beside the page.
    assert [path.name for path in example_page.parent.iterdir()] == ["calibration.html"]


def test_the_page_escapes_names_from_the_reviews_file(tmp_path: Path) -> None:
    hostile = 'tests/<script>alert(1)</script>.py::Test"x'
    decided = pattern(KNOWN, test=f"{hostile}::test_a", scope=hostile)
    reviews = write_reviews(tmp_path / "<b>reviews</b>.json", decided)
    page = render_page(run([reviews], by="marker", cwd=tmp_path))
    assert "<script" not in page and "<b>reviews" not in page
    assert "tests/&lt;script&gt;alert(1)&lt;/script&gt;.py::Test&quot;x" in page


def test_the_plot_renders_in_chromium(example_page: Path, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    browser.get(example_page.as_uri())
    assert browser.find_element(By.TAG_NAME, "h1").text == "auto_accept calibration"
    errors = [entry for entry in browser.get_log("browser") if entry["level"] in ("SEVERE", "WARNING")]
    assert errors == [], errors

    plot = browser.find_element(By.ID, "plot-overall")
    box = browser.execute_script("return arguments[0].getBoundingClientRect().toJSON()", plot)
    assert box["width"] > 600 and box["height"] > 300
    assert plot.get_attribute("role") == "img"
    assert browser.find_element(By.ID, "plot-overall-title").get_attribute("textContent").startswith("Risk–coverage")

    # One point per threshold at which some decided citation stands: all 50 in this example.
    rates = plot.find_elements(By.CSS_SELECTOR, "circle.dot-rate")
    bounds = plot.find_elements(By.CSS_SELECTOR, "circle.dot-bound")
    assert len(rates) == len(bounds) == 50
    # The recommendation is drawn where its point is: the ring sits on the 0.65 upper-bound point.
    (pick,) = plot.find_elements(By.CSS_SELECTOR, "circle.pick")
    (point,) = [dot for dot in bounds if dot.get_attribute("data-threshold") == "0.65"]
    assert (pick.get_attribute("cx"), pick.get_attribute("cy")) == (
        point.get_attribute("cx"),
        point.get_attribute("cy"),
    )
    labels = {element.text for element in plot.find_elements(By.TAG_NAME, "text")}
    assert {"recommended 0.65", "today (mixed)", "max error 5.0%"} <= labels
    # Points above the top of the axis are clipped to the plot, not drawn over the labels.
    clip = browser.execute_script(
        "var g = arguments[0].querySelector('g[clip-path]');"
        "var area = document.getElementById('plot-overall-clip').querySelector('rect').getBBox();"
        "return [getComputedStyle(g).clipPath, area.width, area.height];",
        plot,
    )
    assert clip[0] == 'url("#plot-overall-clip")' and clip[1] > 400 and clip[2] > 300

    # The table is the plot's text equivalent: the recommended and today's rows are marked in words.
    recommended = browser.find_element(By.CSS_SELECTOR, "#plot-overall-table tr.recommended td")
    assert recommended.text == "0.65 (recommended)"
    assert browser.find_element(By.CSS_SELECTOR, "#plot-overall-table tr.today td").text == "0.80 (today)"
    assert browser.get_log("browser") == []


# --- the synthetic example ------------------------------------------------------------------


def test_the_example_is_what_its_script_makes(tmp_path: Path) -> None:
    shutil.copy(EXAMPLE / "make_synthetic.py", tmp_path / "make_synthetic.py")
    made = subprocess.run(
        [sys.executable, str(tmp_path / "make_synthetic.py")], capture_output=True, text=True, timeout=120, check=False
    )
    assert made.returncode == 0, made.stderr
    for name in ("citecheck-reviews.json", "report.json"):
        assert (tmp_path / name).read_bytes() == (EXAMPLE / name).read_bytes(), f"rerun make_synthetic.py: {name}"
    data = json.loads((EXAMPLE / "citecheck-reviews.json").read_text())
    assert data["synthetic"].startswith("SYNTHETIC") and len(data["decisions"]) >= 200


def test_the_docs_show_the_commands_real_output(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(EXAMPLE)
    assert citecheck(DOCS_COMMAND) == 0
    output = capsys.readouterr().out
    docs = (REPO / "docs" / "review.md").read_text()
    assert "$ citecheck " + " ".join(DOCS_COMMAND) + "\n" + output in docs, "paste the new output into docs/review.md"

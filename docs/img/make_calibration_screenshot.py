"""Regenerate docs/img/calibration-plot.png from the synthetic example in examples/calibration/.

Runs ``citecheck calibrate --report report.json --by marker --html ...`` there (the command
docs/review.md shows) and photographs the page's first section — the recommendation and the
risk–coverage plot — with headless Chromium (Debian's ``chromium`` and ``chromium-driver``;
``pip install selenium``).

    python docs/img/make_calibration_screenshot.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from chromium import headless_chromium

HERE = Path(__file__).resolve().parent
EXAMPLE = HERE.parent.parent / "examples" / "calibration"


def screenshot(page: Path, out: Path) -> None:
    from selenium.webdriver.common.by import By

    with headless_chromium(1000, 1400) as driver:
        driver.get(page.as_uri())
        # The threshold table is in the docs as text already; photograph the recommendation and the plot.
        driver.execute_script("document.querySelector('#plot-overall-table').parentElement.style.display = 'none'")
        driver.find_element(By.CSS_SELECTOR, "section[aria-labelledby=overall-heading]").screenshot(str(out))


def main() -> int:
    with tempfile.TemporaryDirectory() as temp:
        page = Path(temp) / "calibration.html"
        command = [sys.executable, "-m", "pytest_citecheck", "calibrate", "--report", "report.json", "--by", "marker",
                   "--html", str(page)]
        subprocess.run(command, cwd=EXAMPLE, env=os.environ, check=True, stdout=subprocess.DEVNULL)
        screenshot(page, HERE / "calibration-plot.png")
    print(f"wrote {HERE / 'calibration-plot.png'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

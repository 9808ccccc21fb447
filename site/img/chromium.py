"""The headless Chromium the screenshot scripts here photograph pages with.

Debian's ``chromium`` and ``chromium-driver`` (found on ``PATH``, else in ``/usr/bin``), driven with
Selenium (``pip install selenium``). The browser tests have their own in tests/conftest.py: they read
the console log, and never take pictures.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from typing import Any

# Quiet (no updates, sync or first-run pages), and pictures at one device pixel per CSS pixel.
ARGUMENTS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
    "--force-device-scale-factor=1",
)


@contextlib.contextmanager
def headless_chromium(width: int, height: int) -> Iterator[Any]:
    """A Selenium driver of a headless Chromium whose window is ``width`` by ``height``; it quits on leaving."""
    from selenium import webdriver

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in (*ARGUMENTS, f"--window-size={width},{height}"):
        options.add_argument(argument)
    service = webdriver.ChromeService(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    driver = webdriver.Chrome(options=options, service=service)
    try:
        yield driver
    finally:
        driver.quit()

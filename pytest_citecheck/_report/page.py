"""What every page pytest-citecheck writes shares: one self-contained HTML file around its body.

The HTML report (``html``) and the calibration page (``_review.calibration_page``) are each one file
with no network and no external assets: styles (and any script) inline, and an empty data URL as the
favicon so that the browser asks no server for one. This module owns the document around each
page's body, the escaping of every value the pages show, and the time stamp they carry. Their
styles stay with them: the two pages look alike but are laid out differently.
"""

from __future__ import annotations

import html
from datetime import UTC, datetime
from typing import Any


def escape(value: Any) -> str:
    """``value`` as HTML text or as a quoted attribute's value; None as nothing."""
    return html.escape("" if value is None else str(value), quote=True)


def generated_at(generated: str | None = None) -> str:
    """The time stamp a page says it was generated at: ``generated`` when given (tests pin it), else now, in UTC."""
    return generated or datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")


def html_page(title: str, style: str, body: str) -> str:
    """The whole page: ``body`` (the markup inside ``<body>``) under a head with ``title`` (plain text) and ``style``."""
    return page_start(title, style) + body + PAGE_END


def page_start(title: str, style: str) -> str:
    """The page up to the start of its body's markup (a page written in pieces: ``html_chunks``)."""
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title>
<link rel="icon" href="data:,">
<style>{style}</style>
</head>
<body>
"""


PAGE_END = """
</body>
</html>
"""

"""The HTML report (``--citecheck-html=PATH``): one self-contained page a reviewer reads.

One file, no network and no external assets: the styles and the script are inline, the favicon is
a data URL. The page counts citations per verdict (in its markup: readable with scripts off) and
shows the citations a page of cards at a time, with filters: verdict, status, needs review, and a
search of test ids, citation ids and claims. A card has a verdict badge (a word, not only a colour),
a confidence bar drawn against the ``auto_accept`` threshold, the claim, the section text with the
quoted passage in a ``<mark>``, the closest passage for a fabricated quote, approximate matches
marked, and human decisions (or stale ones) spelled out.

The citations are data, not markup: two JSON blocks, the texts cards share (each section text once,
each test id once) and one small object per citation (``html_cards``), which the script
(``html_assets``) draws as cards. So the page stays small and quick to open at 20,000 citations.
The blocks are JSON with ``<``, ``>`` and ``&`` escaped, so no text in them ends the script element,
and the script writes text only as text.

Built for keyboard and screen-reader use: landmarks and headings, a skip link, native labelled form
controls, a live status line ("Page 1 of 400: citations 1–50 of 20,000"), scrollable regions that
take focus, every bar with a text equivalent. The page is written as a stream (``html_chunks``):
the plugin calls ``write_html`` on the controller at the end of the session.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pytest_citecheck._files import atomic_write_chunks
from pytest_citecheck._report.html_assets import SCRIPT, STYLE, VERDICT_TEXT
from pytest_citecheck._report.html_cards import Tables
from pytest_citecheck._report.page import PAGE_END, generated_at, page_start
from pytest_citecheck._report.page import escape as _e
from pytest_citecheck._report.run_report import VERDICT_ORDER, Report
from pytest_citecheck._text import plural

__all__ = ["VERDICT_TEXT", "html_chunks", "render_html", "script_json", "write_html"]

# What must not appear raw in a <script> element's JSON: "<" (so no "</script" and no "<!--"), ">"
# and "&" for good measure, and the two line separators some tools still take for line ends.
_IN_SCRIPT = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"})
# A lone surrogate (from a JSON report's "\ud800") cannot be written as UTF-8: kept as its escape.
_SURROGATE = re.compile("[\ud800-\udfff]")


def script_json(value: Any) -> str:
    """``value`` as JSON that is safe inside a ``<script type="application/json">`` element."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).translate(_IN_SCRIPT)
    return _SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def _badge(verdict: str) -> str:
    return f'<span class="badge {_e(verdict)}">{_e(verdict)}</span>'


def render_html(report: Report, *, generated: str | None = None) -> str:
    """The report page as one string (``html_chunks`` joined)."""
    return "".join(html_chunks(report, generated=generated))


def html_chunks(report: Report, *, generated: str | None = None) -> Iterator[str]:
    """The report page in pieces (a shared text or a card each), for ``write_html`` to write as they come."""
    rows = report.distinct
    yield _head(report, rows, generated)
    if rows:
        yield from _data(report, rows)
    else:
        yield "<p>No citation was checked.</p>"
    yield (
        """
</section>
</main>
<footer>Verdicts at or above auto_accept stand on their own; the rest need a human. Record decisions with <code>citecheck review</code>.</footer>
"""
        + (f"<script>{SCRIPT}</script>" if rows else "")
        + PAGE_END
    )


def _head(report: Report, rows: list[Any], generated: str | None) -> str:
    title = f"Citation check: {plural(len(rows), 'citation')}"
    return (
        page_start(title, STYLE)
        + f"""<a class="skip" href="#citations-heading">Skip to the citations</a>
<header>
<h1>Citation check</h1>
<p class="meta">{_e(plural(len(rows), "citation"))} checked in {_e(plural(report.tests, "test"))} · generated {_e(generated_at(generated))} by pytest-citecheck</p>
</header>
<main>
<section aria-labelledby="counts-heading">
<h2 id="counts-heading">Verdicts</h2>
<ul class="counts">
{chr(10).join(_count_items(report))}
</ul>
</section>
<section aria-labelledby="citations-heading">
<h2 id="citations-heading" tabindex="-1">Citations</h2>
{_controls(report, rows) if rows else ""}"""
    )


def _options(counts: Counter[str], order: list[str]) -> str:
    return "".join(f'<option value="{_e(value)}">{_e(value)} ({counts[value]:,})</option>' for value in order)


def _pager(where: str) -> str:
    return (
        f'<nav class="pager" aria-label="Pages ({where})" hidden data-needs-script>'
        '<button type="button" class="page-prev">Previous page</button>'
        '<span class="page-of"></span><button type="button" class="page-next">Next page</button></nav>'
    )


def _controls(report: Report, rows: list[Any]) -> str:
    """The filters and the pager (shown by the script: without it they would do nothing), and what
    the page says with scripts off."""
    verdicts = report.counts()
    statuses = Counter(str(row.status) for row in rows if row.status)
    total = f"{len(rows):,}"
    return f"""<form class="controls" id="filters" role="search" aria-label="Filter the citations" hidden data-needs-script>
<label>Verdict <select id="filter-verdict"><option value="">any ({total})</option>{_options(verdicts, [v for v in VERDICT_ORDER if verdicts[v]])}</select></label>
<label>Status <select id="filter-kind"><option value="">any ({total})</option>{_options(statuses, sorted(statuses))}</select></label>
<label><input type="checkbox" id="only-review"> Show only citations that need review</label>
<label>Search tests, ids and claims <input type="search" id="filter-text" autocomplete="off"></label>
</form>
<p id="filter-status" role="status" aria-live="polite"></p>
<noscript><p>This page lists its {_e(plural(len(rows), "citation"))} with a script, and scripts are off. The counts above cover them all; the JSON report (<code>--citecheck-json</code>) and <code>citecheck review</code> show each one.</p></noscript>
{_pager("top")}
<div id="cards"></div>
{_pager("bottom")}
"""


def _data(report: Report, rows: list[Any]) -> Iterator[str]:
    """The two JSON blocks: the shared texts, each once, then one card object per citation."""
    tables = Tables()
    yield '<script type="application/json" id="citecheck-texts">['
    separator = ""
    for row in rows:
        for entry in tables.entries(row):
            yield separator + script_json(entry)
            separator = ",\n"
    yield ']</script>\n<script type="application/json" id="citecheck-cards">['
    repeats = report.repeats()
    for index, row in enumerate(rows):
        yield ("" if index == 0 else ",\n") + script_json(tables.card(row, repeats.get(row.qualified_id, 1)))
    yield "]</script>"


def _count_items(report: Report) -> list[str]:
    counts = report.counts()
    review = sum(1 for row in report.distinct if row.needs_review)
    decided = sum(1 for row in report.distinct if row.decided)
    items = [
        f'<li>{_badge(verdict)}<span class="n">{counts[verdict]}</span>{_e(VERDICT_TEXT[verdict])}</li>'
        for verdict in VERDICT_ORDER
        if counts[verdict] or verdict != "errored"  # errored only when a check raised
    ]
    items.append(
        f'<li><span class="tag review">needs review</span><span class="n">{review}</span>below auto_accept, undecided</li>'
    )
    items.append(f'<li><span class="tag human">human</span><span class="n">{decided}</span>decided by a reviewer</li>')
    return items


def write_html(report: Report, path: str | Path) -> None:
    """Write the report page to ``path`` atomically, a piece at a time (the page is never held whole);
    a symbolic link at ``path`` is kept and the file it points to replaced."""
    atomic_write_chunks(Path(path), html_chunks(report), follow_links=True)

"""The HTML report (``--citecheck-html=PATH``): one self-contained page a reviewer reads.

One file, no network and no external assets: the styles and the few lines of script are inline, the
favicon is a data URL. The page counts citations per verdict and shows one card per citation: a
verdict badge (a word, not only a colour), a confidence bar drawn against the ``auto_accept``
threshold, the claim, the section text with the quoted passage in a ``<mark>`` (from the row's
``span`` into ``section_text``), the closest passage for a fabricated quote when the row has one,
approximate matches marked, and human decisions (or stale ones) spelled out.

Built for keyboard and screen-reader use: landmarks and headings, a skip link, a native checkbox as
the only control, scrollable regions that take focus, every bar with a text equivalent. Pure code
over report rows; the plugin calls ``write_html`` on the controller at the end of the session.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_citecheck._files import atomic_write_chunks
from pytest_citecheck._report.page import PAGE_END, generated_at, page_start
from pytest_citecheck._report.page import escape as _e
from pytest_citecheck._report.row import ReportRow
from pytest_citecheck._report.run_report import VERDICT_ORDER, Report
from pytest_citecheck._text import plural

_LINE_BREAK = re.compile(r"(\n[ \t]*)")

VERDICT_TEXT = {
    "verified": "the section supports the claim",
    "unsupported": "the section does not address the claim",
    "contradicted": "the section says the opposite of the claim",
    "fabricated": "the quote is not in the source",
}

STYLE = """
:root { --ink:#1b1f24; --muted:#57606a; --line:#d0d7de; --bg:#ffffff; --panel:#f6f8fa;
  --verified:#1a7f37; --unsupported:#9a6700; --contradicted:#cf222e; --fabricated:#8250df; --focus:#0969da; }
* { box-sizing: border-box; }
body { margin:0; font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif; color:var(--ink); background:var(--bg); }
.skip { position:absolute; left:-10000px; top:0; }
.skip:focus { left:1rem; top:1rem; background:#fff; padding:.5rem 1rem; border:2px solid var(--focus); z-index:10; }
header, main { max-width:72rem; margin:0 auto; padding:0 1.25rem; }
header { padding-top:1.25rem; }
h1 { font-size:1.6rem; margin:.2rem 0; }
h2 { font-size:1.2rem; margin:1.5rem 0 .5rem; }
h3 { font-size:1.05rem; margin:0; display:flex; gap:.6rem; align-items:center; flex-wrap:wrap; }
.meta { color:var(--muted); margin:.2rem 0 0; }
.counts { list-style:none; padding:0; margin:0; display:flex; gap:.75rem; flex-wrap:wrap; }
.counts li { border:1px solid var(--line); border-radius:.5rem; padding:.5rem .9rem; background:var(--panel); min-width:8.5rem; }
.counts .n { display:block; font-size:1.5rem; font-weight:700; }
.badge { display:inline-block; border-radius:1rem; padding:.05rem .6rem; font-size:.85rem; font-weight:600; color:#fff; }
.badge.verified { background:var(--verified); } .badge.unsupported { background:var(--unsupported); }
.badge.contradicted { background:var(--contradicted); } .badge.fabricated { background:var(--fabricated); }
.tag { display:inline-block; border:1px solid var(--muted); border-radius:1rem; padding:0 .55rem; font-size:.8rem; color:var(--ink); }
.tag.review { border-color:var(--unsupported); background:#fff8c5; }
.tag.human { border-color:var(--verified); background:#dafbe1; }
.tag.stale { border-color:var(--contradicted); background:#ffebe9; }
.tag.approx { border-color:var(--fabricated); background:#fbefff; }
.tag.elsewhere { border-color:var(--contradicted); background:#ffebe9; }
.tag.flagged { border-color:var(--contradicted); background:#fff1e5; }
ul.questions { margin:0; padding-left:1.1rem; }
.controls { margin:.75rem 0; display:flex; gap:1.5rem; flex-wrap:wrap; align-items:center; }
#filter-status { color:var(--muted); }
.citation { border:1px solid var(--line); border-left:6px solid var(--line); border-radius:.5rem; padding:1rem 1.1rem; margin:0 0 1rem; }
.citation.verified { border-left-color:var(--verified); } .citation.unsupported { border-left-color:var(--unsupported); }
.citation.contradicted { border-left-color:var(--contradicted); } .citation.fabricated { border-left-color:var(--fabricated); }
.citation.action-fail { border-left-color:var(--contradicted); border-color:var(--contradicted); }
.citation.action-warn { border-left-color:var(--unsupported); }
.citation.action-fail .fill { background:var(--contradicted); } .citation.action-warn .fill { background:var(--unsupported); }
.tag.action-fail { border-color:var(--contradicted); background:var(--contradicted); color:#fff; font-weight:700; }
.tag.action-warn { border-color:var(--unsupported); background:#fff8c5; font-weight:700; }
.citation dl { display:grid; grid-template-columns:9rem 1fr; gap:.35rem 1rem; margin:.75rem 0 0; }
.citation dt { color:var(--muted); font-weight:600; }
.citation dd { margin:0; min-width:0; }
.test { font-family:ui-monospace,SFMono-Regular,Menlo,monospace; font-size:.85rem; color:var(--muted); overflow-wrap:anywhere; }
.conf { display:flex; align-items:center; gap:.6rem; }
.bar { position:relative; width:14rem; max-width:60%; height:.8rem; background:#eaeef2; border-radius:.4rem; }
.fill { position:absolute; left:0; top:0; bottom:0; border-radius:.4rem; background:var(--verified); }
.fill.unsupported { background:var(--unsupported); } .fill.contradicted { background:var(--contradicted); }
.fill.below { background:repeating-linear-gradient(135deg, currentColor 0 4px, transparent 4px 7px); opacity:.7; }
.fill.verified.below { color:var(--verified); } .fill.unsupported.below { color:var(--unsupported); }
.fill.contradicted.below { color:var(--contradicted); }
.threshold { position:absolute; top:-.25rem; bottom:-.25rem; width:2px; background:var(--ink); }
.section-text { white-space:pre-wrap; font-family:ui-monospace,SFMono-Regular,Menlo,monospace; font-size:.85rem;
  background:var(--panel); border:1px solid var(--line); border-radius:.4rem; padding:.6rem .75rem; max-height:14rem; overflow:auto; margin:0; }
mark { background:#ffd33d; color:#000; border-radius:.15rem; box-shadow:0 1px 0 #bf8700; }
mark .gap { background:var(--panel); box-shadow:0 1px 0 var(--panel); }
.decision { background:#dafbe1; border:1px solid #4ac26b; border-radius:.4rem; padding:.5rem .75rem; }
.decision.stale { background:#ffebe9; border-color:#ff8182; }
a:focus, input:focus, [tabindex]:focus { outline:3px solid var(--focus); outline-offset:2px; }
.hidden { display:none; }
footer { max-width:72rem; margin:2rem auto; padding:0 1.25rem; color:var(--muted); font-size:.85rem; }
"""

SCRIPT = """
(function () {
  var toggle = document.getElementById('only-review');
  var cards = document.querySelectorAll('.citation');
  var status = document.getElementById('filter-status');
  function apply() {
    var shown = 0;
    cards.forEach(function (card) {
      var hide = toggle.checked && card.getAttribute('data-needs-review') !== 'true';
      card.classList.toggle('hidden', hide);
      if (!hide) { shown += 1; }
    });
    status.textContent = shown + (shown === 1 ? ' citation shown' : ' citations shown');
  }
  toggle.addEventListener('change', apply);
  // Scroll each section box (not the page) so its highlighted passage is in view.
  document.querySelectorAll('.section-text').forEach(function (box) {
    var mark = box.querySelector('mark');
    if (mark) { box.scrollTop = Math.max(0, mark.offsetTop - box.offsetTop - 24); }
  });
  apply();
})();
"""


def _badge(verdict: str) -> str:
    return f'<span class="badge {_e(verdict)}">{_e(verdict)}</span>'


def _confidence(row: ReportRow) -> str:
    """The bar, drawn at what the gate used (the computed confidence when it is the lower), and its words."""
    confidence = row.gate_confidence
    if confidence is None:
        return "not judged (no model was asked)"
    threshold = row.auto_accept
    below = confidence < threshold
    relation = "below" if below else "at or above"
    label = f"confidence {row.confidence_cell}, {relation} the auto_accept threshold {threshold:.2f}"
    return (
        f'<div class="conf"><div class="bar" role="img" aria-label="{_e(label)}">'
        f'<span class="fill {_e(row.verdict)}{" below" if below else ""}" style="width:{confidence * 100:.1f}%"></span>'
        f'<span class="threshold" style="left:calc({threshold * 100:.1f}% - 1px)" title="auto_accept {threshold:.2f}"></span>'
        f'</div><span aria-hidden="true">{_e(row.confidence_cell)} (threshold {threshold:.2f})</span></div>'
    )


def _section_text(row: ReportRow) -> str:
    text = row.section_text
    if not text:
        return ""
    if row.spans:
        return _assembled_text(text, row.spans, f"Text of sections {row.section}, judged together")
    label = f"Text of section {row.section}" if row.section else "Text of the whole document"
    if row.document:
        label += f" of {row.document}"
    span = row.span
    if span is not None and 0 <= span[0] <= span[1] <= len(text):
        start, end = span
        body = f"{_e(text[:start])}<mark>{_passage(text[start:end])}</mark>{_e(text[end:])}"
        label += " (the quoted passage is highlighted)"
    else:
        body = _e(text)
    return f'<pre class="section-text" tabindex="0" role="region" aria-label="{_e(label)}">{body}</pre>'


def _assembled_text(text: str, spans: Sequence[tuple[int, int]], label: str) -> str:
    """An assembly's labelled text (several sections) with each quote's passage in a ``<mark>``."""
    valid = sorted((start, end) for start, end in spans if 0 <= start <= end <= len(text))
    pieces, position = [], 0
    for start, end in valid:
        if start < position:  # overlapping quotes: the first mark already covers this one
            continue
        pieces.append(f"{_e(text[position:start])}<mark>{_passage(text[start:end])}</mark>")
        position = end
    pieces.append(_e(text[position:]))
    if valid:
        label += " (the quoted passages are highlighted)"
    return f'<pre class="section-text" tabindex="0" role="region" aria-label="{_e(label)}">{"".join(pieces)}</pre>'


def _questions(row: ReportRow) -> str:
    """Jev's answers to the extra questions (option ``questions``) asked of this citation."""
    if not row.questions:
        return ""
    items = [_question(str(name), answer, row.auto_accept) for name, answer in row.questions.items()]
    return f'<dt>Questions</dt><dd><ul class="questions">{"".join(items)}</ul></dd>'


def _question(name: str, answer: Mapping[str, Any], threshold: float) -> str:
    from pytest_citecheck._judge.questions import EXTRA_QUESTIONS

    concern = answer.get("concern")
    detail = f"concern {float(concern):.2f}" if concern is not None else "concern unknown"
    if answer.get("yes") is not None:
        detail += f", Jev's probability of yes {float(answer['yes']):.2f}"
    question = EXTRA_QUESTIONS.get(name)
    if answer.get("confident"):
        state = f"<strong>flagged, confident</strong> (at or above auto_accept {threshold:.2f}): fails the test"
    elif answer.get("flagged"):
        state = f"<strong>flagged</strong> (below auto_accept {threshold:.2f}): needs review"
    else:
        state = "not flagged"
    meaning = f": {_e(question.concern)}" if question is not None and answer.get("flagged") else ""
    return f"<li><code>{_e(name)}</code>: {state} ({_e(detail)}){meaning}</li>"


def _passage(passage: str) -> str:
    # A quote that runs over a line break would paint the next line's indentation too; the
    # indentation stays inside the <mark> (its text is the quote) but is drawn unhighlighted.
    return "".join(
        f'<span class="gap">{_e(piece)}</span>' if index % 2 else _e(piece)
        for index, piece in enumerate(_LINE_BREAK.split(passage))
    )


def _closest(row: ReportRow) -> str:
    closest = row.closest
    if not closest:
        return ""
    passage = closest.get("text") or closest.get("passage") or closest.get("quote") or ""
    where = f"section {closest['section']}" if closest.get("section") else "the source"
    if closest.get("document"):
        where += f" of {closest['document']}"
    similarity = closest.get("similarity") if closest.get("similarity") is not None else closest.get("score")
    detail = f" (similarity {float(similarity):.2f})" if isinstance(similarity, int | float) else ""
    if row.removed:  # an altered quote: cut from this passage, less the words that turn its meaning
        words = ", ".join(f"<q>{_e(word)}</q>" for word in row.removed)
        return (
            f"<dt>Altered</dt><dd>Cut from {_e(where)}, but the elision removes {words}, which turns the meaning; "
            f"the passage says: <q>{_e(passage)}</q></dd>"
        )
    return f"<dt>Closest passage</dt><dd>In {_e(where)}{_e(detail)}: <q>{_e(passage)}</q></dd>"


def _cited(row: ReportRow) -> str:
    """Where a misattributed citation said its quote is (the card's Section and Document say where it is)."""
    if not row.misattributed:
        return ""
    cited = f"§ {row.cited_section}" if row.cited_section else "the document"
    if row.cited_document:
        cited += f" of {row.cited_document}"
    return f"<dt>Cited</dt><dd>{_e(cited)}: the quote is not there</dd>"


def _is_approximate(row: ReportRow) -> bool:
    if row.approximate or row.status == "approximate" or row.get("approximate"):
        return True
    return row.similarity is not None and row.similarity < 1.0 and row.span is not None


def _decision(row: ReportRow) -> str:
    decision, stale = row.decision, row.stale_decision
    if decision:
        said = row.model_verdict or decision.get("model_verdict")
        how = "confirmed" if decision.get("action") == "confirm" else f"overrode Jev's {_e(said)} with"
        note = f" Note: “{_e(decision['note'])}”" if decision.get("note") else ""
        return (
            f'<dt>Human decision</dt><dd class="decision">{_e(decision.get("by"))} {how} '
            f"<strong>{_e(decision.get('verdict'))}</strong> on {_e(decision.get('at'))}.{note}</dd>"
        )
    if stale:
        return (
            f'<dt>Stale decision</dt><dd class="decision stale">{_e(stale.get("by"))} decided '
            f"<strong>{_e(stale.get('verdict'))}</strong> on {_e(stale.get('at'))}, but the claim, the section or the model "
            "has changed since, so it no longer applies. Review this citation again.</dd>"
        )
    return ""


# (predicate, tag) for the tags a card's heading carries, in order.
_TAGS: tuple[tuple[Callable[[ReportRow], bool], str], ...] = (
    (lambda row: row.action == "review", '<span class="tag review">needs review</span>'),
    (lambda row: row.action == "human", '<span class="tag human">decided by a human</span>'),
    (lambda row: row.stale, '<span class="tag stale">stale decision</span>'),
    (lambda row: row.misattributed, '<span class="tag elsewhere">found elsewhere than cited</span>'),
    (lambda row: row.misattributed and row.failed, '<span class="tag action-fail">FAIL: misattributed</span>'),
    (lambda row: row.misattributed and not row.failed, '<span class="tag action-warn">warn: misattributed</span>'),
)


def _tags(row: ReportRow) -> str:
    tags = [tag for applies, tag in _TAGS if applies(row)]
    if row.flagged_questions:
        tags.append(f'<span class="tag flagged">flagged: {_e(", ".join(row.flagged_questions))}</span>')
    if _is_approximate(row):
        detail = f" ({row.similarity:.2f})" if row.similarity is not None else ""
        tags.append(f'<span class="tag approx">approximate match{_e(detail)}</span>')
    return " ".join(tags)


def _where(row: ReportRow) -> str:
    """The card's Section: where the quote is (none for a fabricated one)."""
    if row.status == "missing" or row.verdict == "fabricated":
        return "<dd>not found in the source</dd>"
    if row.sections:
        return f"<dd>{_e(', '.join('§ ' + section for section in row.sections))} (judged together)</dd>"
    if row.section is None:
        return "<dd>none: the claim is judged against the whole document</dd>"
    return f"<dd>§ {_e(row.section)}</dd>"


def _quoted(row: ReportRow) -> str:
    if row.quotes:
        return " ".join(f"<q>{_e(quote)}</q>" for quote in row.quotes)
    return f"<q>{_e(row.quote)}</q>" if row.quote else "none (claim-only citation)"


def _action_class(row: ReportRow) -> str:
    """A misattributed card takes the colour of what it got: FAIL red, warn amber (not its verdict's green)."""
    return f" action-{row.action.lower()}" if row.misattributed else ""


def _card(index: int, row: ReportRow, checks: int = 1) -> str:
    verdict = row.verdict
    heading_id = f"citation-{index}"
    repeated = f' <span class="tag">checked {checks} times: the last check is shown</span>' if checks > 1 else ""
    parts = [
        f'<article class="citation {_e(verdict)}{_action_class(row)}" aria-labelledby="{heading_id}" data-needs-review="{str(row.action == "review").lower()}">',
        f'<h3 id="{heading_id}">Citation {_e(row.id)} {_badge(verdict)} {_tags(row)}{repeated}</h3>',
        f'<div class="test">{_e(row.test)}</div>',
        "<dl>",
        f"<dt>Verdict</dt><dd>{_e(verdict)}: {_e(VERDICT_TEXT.get(verdict, ''))}</dd>",
        f"<dt>Confidence</dt><dd>{_confidence(row)}</dd>",
        f"<dt>Claim</dt><dd>{_e(row.claim)}</dd>",
        f"<dt>Quote</dt><dd>{_quoted(row)}</dd>",
        f"<dt>Document</dt><dd>{_e(row.document)}</dd>" if row.document else "",
        f"<dt>Section</dt>{_where(row)}",
        _cited(row),
        _closest(row),
        _questions(row),
        _decision(row),
    ]
    section = _section_text(row)
    if section:
        parts.append(f"<dt>Section text</dt><dd>{section}</dd>")
    parts += ["</dl>", "</article>"]
    return "\n".join(part for part in parts if part)


def render_html(report: Report, *, generated: str | None = None) -> str:
    """The report page as one string (``html_chunks`` joined)."""
    return "".join(html_chunks(report, generated=generated))


def html_chunks(report: Report, *, generated: str | None = None) -> Iterator[str]:
    """The report page in pieces, a card each, for ``write_html`` to write as they come."""
    rows = report.distinct
    repeats = report.repeats()
    title = f"Citation check: {plural(len(rows), 'citation')}"
    yield (
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
<div class="controls"><label><input type="checkbox" id="only-review"> Show only citations that need review</label>
<span id="filter-status" role="status" aria-live="polite"></span></div>
"""
    )
    for index, row in enumerate(rows, start=1):
        yield ("\n" if index > 1 else "") + _card(index, row, repeats.get(row.qualified_id, 1))
    if not rows:
        yield "<p>No citation was checked.</p>"
    yield (
        f"""
</section>
</main>
<footer>Verdicts at or above auto_accept stand on their own; the rest need a human. Record decisions with <code>citecheck review</code>.</footer>
<script>{SCRIPT}</script>"""
        + PAGE_END
    )


def _count_items(report: Report) -> list[str]:
    counts = report.counts()
    review = sum(1 for row in report.distinct if row.needs_review)
    decided = sum(1 for row in report.distinct if row.decided)
    items = [
        f'<li>{_badge(verdict)}<span class="n">{counts[verdict]}</span>{_e(VERDICT_TEXT[verdict])}</li>'
        for verdict in VERDICT_ORDER
    ]
    items.append(
        f'<li><span class="tag review">needs review</span><span class="n">{review}</span>below auto_accept, undecided</li>'
    )
    items.append(f'<li><span class="tag human">human</span><span class="n">{decided}</span>decided by a reviewer</li>')
    return items


def write_html(report: Report, path: str | Path) -> None:
    """Write the report page to ``path`` atomically, card by card (the page is never held whole)."""
    atomic_write_chunks(Path(path), html_chunks(report))

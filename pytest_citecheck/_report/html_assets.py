"""The HTML report's inline assets: its styles and the script that draws the cards (``html.py``).

The script reads two JSON blocks of the page, ``citecheck-texts`` (the texts cards share: each
section text with its label, each test id) and ``citecheck-cards`` (one object per citation, see
``html_cards``), and draws one page of cards at a time, of the citations the filters let through.
It writes every text with ``textContent`` or as a text node, never as markup, and builds elements of
a few fixed tags only, so text from an app or a server is shown, never run.
"""

from __future__ import annotations

import json

VERDICT_TEXT = {
    "verified": "the section supports the claim",
    "unsupported": "the section does not address the claim",
    "contradicted": "the section says the opposite of the claim",
    "fabricated": "the quote is not in the source",
    "errored": "the check raised an error: no verdict",
}

# Citations drawn at a time: a page of cards, whatever the report's size.
PAGE_SIZE = 50

STYLE = """
:root { --ink:#1b1f24; --muted:#57606a; --line:#d0d7de; --bg:#ffffff; --panel:#f6f8fa;
  --verified:#1a7f37; --unsupported:#9a6700; --contradicted:#cf222e; --fabricated:#8250df; --errored:#6e7781; --focus:#0969da; }
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
.badge.errored { background:var(--errored); } .citation.errored { border-left-color:var(--errored); }
.tag { display:inline-block; border:1px solid var(--muted); border-radius:1rem; padding:0 .55rem; font-size:.8rem; color:var(--ink); }
.tag.review { border-color:var(--unsupported); background:#fff8c5; }
.tag.human { border-color:var(--verified); background:#dafbe1; }
.tag.stale { border-color:var(--contradicted); background:#ffebe9; }
.tag.approx { border-color:var(--fabricated); background:#fbefff; }
.tag.elsewhere { border-color:var(--contradicted); background:#ffebe9; }
.tag.flagged { border-color:var(--contradicted); background:#fff1e5; }
ul.questions { margin:0; padding-left:1.1rem; }
.controls { margin:.75rem 0; display:flex; gap:1.5rem; flex-wrap:wrap; align-items:center; }
[data-needs-script][hidden] { display:none; }  /* the filters and pagers until the script shows them: .controls and .pager set display, which would override `hidden` */
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
.pager { display:flex; gap:.75rem; align-items:center; margin:.75rem 0; }
.pager button, .controls select, .controls input[type=search] { font:inherit; padding:.2rem .6rem; }
.controls label { display:flex; gap:.4rem; align-items:center; }
footer { max-width:72rem; margin:2rem auto; padding:0 1.25rem; color:var(--muted); font-size:.85rem; }
"""


_SCRIPT = """
(function () {
  'use strict';
  var VERDICTS = __VERDICTS__, PAGE = __PAGE__;
  var TAGS = {review: ['review', 'needs review'], human: ['human', 'decided by a human'],
    stale: ['stale', 'stale decision'], elsewhere: ['elsewhere', 'found elsewhere than cited'],
    FAIL: ['action-fail', 'FAIL: misattributed'], warn: ['action-warn', 'warn: misattributed']};
  var ELEMENTS = {q: 1, strong: 1, code: 1, ul: 1, li: 1};
  function data(id) { return JSON.parse(document.getElementById(id).textContent); }
  function byId(id) { return document.getElementById(id); }
  var texts = data('citecheck-texts'), cards = data('citecheck-cards');
  function text(value) { return document.createTextNode(value == null ? '' : String(value)); }
  function el(tag, cls, words) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (words != null) { node.textContent = String(words); }
    return node;
  }
  function parts(parent, list) {  // a string is text; [tag, part, ...] an element of a tag in ELEMENTS
    (list || []).forEach(function (part) {
      if (!Array.isArray(part)) { parent.appendChild(text(part)); return; }
      var spec = String(part[0]).split('.');
      if (!ELEMENTS.hasOwnProperty(spec[0])) { parent.appendChild(text(part.slice(1).join(''))); return; }
      var node = el(spec[0], spec.slice(1).join(' '));
      parts(node, part.slice(1));
      parent.appendChild(node);
    });
  }
  function number(n) { return n.toLocaleString('en-US'); }
  function plural(n, word) { return number(n) + ' ' + word + (n === 1 ? '' : 's'); }
  function term(list, name, value) {
    var dd = el('dd');
    list.appendChild(el('dt', null, name));
    if (value != null) { dd.appendChild(typeof value === 'string' ? text(value) : value); }
    list.appendChild(dd);
    return dd;
  }
  function confidence(c, verdict) {  // c: [drawn at, words, auto_accept, its words, below]
    if (!c) { return text('not judged (no model was asked)'); }
    var box = el('div', 'conf'), bar = el('div', 'bar'), words = el('span', null, c[1] + ' (threshold ' + c[3] + ')');
    bar.setAttribute('role', 'img');
    bar.setAttribute('aria-label', 'confidence ' + c[1] + ', ' + (c[4] ? 'below' : 'at or above') +
      ' the auto_accept threshold ' + c[3]);
    var fill = el('span', 'fill ' + verdict + (c[4] ? ' below' : '')), mark = el('span', 'threshold');
    fill.style.width = (c[0] * 100).toFixed(1) + '%';
    mark.style.left = 'calc(' + (c[2] * 100).toFixed(1) + '% - 1px)';
    mark.title = 'auto_accept ' + c[3];
    bar.appendChild(fill); bar.appendChild(mark); box.appendChild(bar);
    words.setAttribute('aria-hidden', 'true');
    box.appendChild(words);
    return box;
  }
  function passage(mark, words) {  // a line break's indentation stays in the mark, drawn unhighlighted
    words.split(/(\\n[ \\t]*)/).forEach(function (piece, n) {
      mark.appendChild(n % 2 ? el('span', 'gap', piece) : text(piece));
    });
  }
  function sectionText(c) {
    var entry = texts[c.s], body = entry[1], spans = c.p || [], at = 0, label = entry[0];
    var box = el('pre', 'section-text');
    box.tabIndex = 0;
    box.setAttribute('role', 'region');
    spans.forEach(function (span) {
      var mark = el('mark');
      box.appendChild(text(body.slice(at, span[0])));
      passage(mark, body.slice(span[0], span[1]));
      box.appendChild(mark);
      at = span[1];
    });
    box.appendChild(text(body.slice(at)));
    if (spans.length) {
      label += spans.length > 1 ? ' (the quoted passages are highlighted)' : ' (the quoted passage is highlighted)';
    }
    box.setAttribute('aria-label', label);
    return box;
  }
  function quotes(c) {
    var dd = document.createDocumentFragment();
    if (!c.q) { return text('none (claim-only citation)'); }
    c.q.forEach(function (quote, n) { if (n) { dd.appendChild(text(' ')); } dd.appendChild(el('q', null, quote)); });
    return dd;
  }
  function card(c, n) {
    var id = 'citation-' + (n + 1), verdict = c.v || '', list = el('dl');
    var misattributed = c.a === 'FAIL' || c.a === 'warn';
    var article = el('article', 'citation ' + verdict + (misattributed ? ' action-' + c.a.toLowerCase() : ''));
    var heading = el('h3');
    article.setAttribute('aria-labelledby', id);
    article.setAttribute('data-needs-review', String(c.a === 'review'));
    heading.id = id;
    heading.appendChild(text('Citation ' + (c.i || '') + ' '));
    heading.appendChild(el('span', 'badge ' + verdict, verdict));
    (c.g || []).forEach(function (tag) {
      var known = Array.isArray(tag) ? tag : (TAGS[tag] || ['', tag]);
      heading.appendChild(text(' '));
      heading.appendChild(el('span', 'tag ' + known[0], known[1]));
    });
    if (c.k) { heading.appendChild(text(' ')); heading.appendChild(el('span', 'tag', 'checked ' + c.k + ' times: the last check is shown')); }
    article.appendChild(heading);
    article.appendChild(el('div', 'test', texts[c.t]));
    term(list, 'Verdict', verdict + ': ' + (VERDICTS[verdict] || ''));
    term(list, 'Confidence', confidence(c.c, verdict));
    term(list, 'Claim', c.l || '');
    term(list, 'Quote', quotes(c));
    if (c.d) { term(list, 'Document', c.d); }
    term(list, 'Section', c.w || '');
    (c.x || []).forEach(function (extra) {
      var dd = term(list, extra[0]);
      if (extra[1]) { dd.className = extra[1]; }
      parts(dd, extra[2]);
    });
    if (c.s != null) { term(list, 'Section text', sectionText(c)); }
    article.appendChild(list);
    return article;
  }
  var verdictBox = byId('filter-verdict'), statusBox = byId('filter-kind'), reviewBox = byId('only-review');
  var search = byId('filter-text'), list = byId('cards'), status = byId('filter-status');
  var pagers = document.querySelectorAll('.pager'), matching = [], page = 0;
  function matches(c, verdict, kind, review, words) {
    if ((verdict && c.v !== verdict) || (kind && c.u !== kind) || (review && c.a !== 'review')) { return false; }
    return !words || [texts[c.t], c.i, c.l].join('\\n').toLowerCase().indexOf(words) >= 0;
  }
  function filter() {
    var verdict = verdictBox.value, kind = statusBox.value, review = reviewBox.checked;
    var words = search.value.trim().toLowerCase();
    matching = [];
    for (var n = 0; n < cards.length; n += 1) {
      if (matches(cards[n], verdict, kind, review, words)) { matching.push(n); }
    }
    page = 0;
    show();
  }
  function show() {
    var pages = Math.max(1, Math.ceil(matching.length / PAGE)), shown = document.createDocumentFragment();
    page = Math.min(Math.max(page, 0), pages - 1);
    var first = page * PAGE, last = Math.min(first + PAGE, matching.length);
    for (var n = first; n < last; n += 1) { shown.appendChild(card(cards[matching[n]], matching[n])); }
    list.replaceChildren(shown);
    // Scroll each section box (not the page) so its highlighted passage is in view.
    list.querySelectorAll('.section-text').forEach(function (box) {
      var mark = box.querySelector('mark');
      if (mark) { box.scrollTop = Math.max(0, mark.offsetTop - box.offsetTop - 24); }
    });
    var filtered = matching.length < cards.length ? ' matching the filters (' + number(cards.length) + ' in all)' : '';
    status.textContent = matching.length ?
      'Page ' + number(page + 1) + ' of ' + number(pages) + ': citations ' + number(first + 1) + '\\u2013' +
        number(last) + ' of ' + number(matching.length) + filtered :
      'No citation matches the filters (' + plural(cards.length, 'citation') + ' in all)';
    pagers.forEach(function (pager) {
      pager.querySelector('.page-prev').disabled = page === 0;
      pager.querySelector('.page-next').disabled = page >= pages - 1;
      pager.querySelector('.page-of').textContent = 'Page ' + number(page + 1) + ' of ' + number(pages);
    });
  }
  function turn(step, fromBottom) {
    page += step;
    show();
    if (fromBottom) { byId('citations-heading').focus(); }
  }
  pagers.forEach(function (pager, n) {
    pager.querySelector('.page-prev').addEventListener('click', function () { turn(-1, n > 0); });
    pager.querySelector('.page-next').addEventListener('click', function () { turn(1, n > 0); });
  });
  [verdictBox, statusBox, reviewBox].forEach(function (box) { box.addEventListener('change', filter); });
  search.addEventListener('input', filter);
  byId('filters').addEventListener('submit', function (event) { event.preventDefault(); filter(); });
  document.querySelectorAll('[data-needs-script]').forEach(function (node) { node.hidden = false; });
  filter();
})();
"""

SCRIPT = _SCRIPT.replace("__VERDICTS__", json.dumps(VERDICT_TEXT)).replace("__PAGE__", str(PAGE_SIZE))

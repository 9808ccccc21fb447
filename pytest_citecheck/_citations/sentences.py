"""Sentences of an LLM's answer: where a claim starts and ends when the citation marks only a point.

The OpenAI annotations and the inline markers say *where* a citation sits in the answer, not which
words it supports; the claim is the sentence the citation closes. A sentence ends at ``.``, ``!`` or
``?`` (with any closing quotes, brackets or ``[n]`` markers after it) followed by white space, and at
every line break (an answer's list items and paragraphs are claims of their own). A full stop after
a common abbreviation ("e.g.", "Dr.") or a single initial ("U.S.") does not end a sentence. This is a
few lines of regular expressions rather than a segmentation library: answers are short, and the
heavy segmenters need models or data downloads that a test suite should not.
"""

from __future__ import annotations

import re

# A sentence end: the punctuation, then closing quotes or brackets and citation markers, then space.
_END = re.compile(r"""[.!?](?:["'”’)]|\[\s*\d+(?:\s*[-–,;]\s*\d+)*\s*\])*(?=\s|$)|\n""")
_ABBREVIATIONS = frozenset(
    "e.g i.e etc vs cf al approx incl fig figs no nos sec secs art para ch p pp vol mr mrs ms dr prof st jr sr".split()
)
_WORD_BEFORE = re.compile(r"([\w.]+)$")
# Layout at the start of a line that is not part of the claim: headings, list bullets, numbers, quote marks.
_LINE_LEAD = re.compile(r"^[ \t]*(?:#{1,6}|[-*•+>]|\d+[.)])[ \t]+")
# A citation marker, with the spaces before it: "30 days [1]." is the claim "30 days.".
_INLINE_MARKER = re.compile(r"[ \t]*(?:\[\s*\d+(?:\s*[-–,;]\s*\d+)*\s*\]|【[^】]*】)")
# A sentence longer than this (an answer with no punctuation) is cut to the text just before the point.
MAX_CLAIM_CHARACTERS = 600


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """``[start, end)`` of each sentence of ``text``, in order, without surrounding white space."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _END.finditer(text):
        if match.group() != "\n" and (_is_abbreviation(text, match.start()) or _is_list_number(text, match.start())):
            continue
        _add(spans, text, start, match.end())
        start = match.end()
    _add(spans, text, start, len(text))
    return spans


def _is_abbreviation(text: str, full_stop: int) -> bool:
    if text[full_stop] != ".":
        return False
    word = _WORD_BEFORE.search(text[max(0, full_stop - 12) : full_stop])
    if word is None:
        return False
    token = word.group(1).lower()
    # "U.S." and "J. Smith": a single letter before the full stop is an initial.
    return token in _ABBREVIATIONS or (len(token.rsplit(".", 1)[-1]) == 1 and token[-1].isalpha())


def _is_list_number(text: str, full_stop: int) -> bool:
    """The full stop of a numbered list item's number ("1. Refunds ..."), which opens its line."""
    line_start = text.rfind("\n", 0, full_stop) + 1
    number = text[line_start:full_stop].strip()
    return number.isdigit() and text[full_stop] == "."


def _add(spans: list[tuple[int, int]], text: str, start: int, end: int) -> None:
    piece = text[start:end]
    stripped = piece.strip()
    if stripped:
        lead = len(piece) - len(piece.lstrip())
        spans.append((start + lead, start + lead + len(stripped)))


def sentence_closed_by(text: str, offset: int) -> tuple[int, int]:
    """The sentence a citation at ``offset`` closes: the last one that starts before it.

    A point right after a sentence's full stop (or after the space that follows it) closes that
    sentence; a point inside a sentence closes the sentence it is in. When the sentence is longer
    than ``MAX_CLAIM_CHARACTERS``, the window of that many characters before the point (from a word
    start) stands for it.
    """
    spans = sentence_spans(text)
    if not spans:
        return (0, 0)
    chosen = spans[0]
    for span in spans:
        if span[0] < offset:
            chosen = span
        else:
            break
    start, end = chosen
    if end - start > MAX_CLAIM_CHARACTERS:
        stop = min(max(offset, start), end)
        start = max(start, stop - MAX_CLAIM_CHARACTERS)
        while start < stop and not text[start - 1].isspace():
            start += 1
        end = stop
    return start, end


def clean_claim(sentence: str) -> str:
    """A sentence as a claim: the answer's text as written, without the heading mark, bullet or number that
    opens its line and without citation markers, trimmed. Nothing else changes ("a .changes file" stays)."""
    claim = _LINE_LEAD.sub("", sentence)
    return _INLINE_MARKER.sub("", claim).strip()


# Text of an answer that is layout, not a claim: a markdown heading ("## Recent developments"), a line
# that is all emphasis ("**Volcanic Activity**"), a lead-in that introduces what follows ("Here is the
# latest news:"), or no words at all (a bullet left when its link is taken out).
_HEADING = re.compile(r"^[ \t]*(?:#{1,6}[ \t]|(\*\*|__)[^\n]*\1[ \t]*$)")


def claim_of(sentence: str) -> str:
    """A sentence of the answer as a claim that needs a citation (``clean_claim``), or "" for layout:
    a heading, an all-bold line, a lead-in ending in ":", or text without a word."""
    claim = clean_claim(sentence)
    if _HEADING.match(sentence) or claim.endswith(":") or not re.search(r"\w", claim):
        return ""
    return claim


def uncited_sentences(text: str, covered: list[tuple[int, int]]) -> list[str]:
    """The sentences of ``text`` that no ``covered`` span (``[start, end)`` in ``text``) overlaps, as
    claims (layout aside: ``claim_of``)."""
    uncited = []
    for start, end in sentence_spans(text):
        if not any(start < cover_end and cover_start < end for cover_start, cover_end in covered):
            sentence = claim_of(text[start:end])
            if sentence:
                uncited.append(sentence)
    return uncited

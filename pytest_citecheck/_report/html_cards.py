"""What the HTML report's script needs to draw one citation's card: a small JSON object per row.

The page (``html.py``) carries the cards as data, not markup: at 20,000 citations the markup of every
card, each with its section's full text, made a page of 55 MB that a browser opened slowly. Here
each row becomes an object of short keys (``card``), and what many rows share is kept once in a
table the object points into (``Tables``): the section texts, with their labels, and the test ids.

Every word the card shows is decided here, in Python; the script only lays the pieces out, and only
as text (``textContent``, never ``innerHTML``). Rich pieces (a quoted passage, a strong word) are
"parts": a string is text, ``[tag, part, ...]`` an element of one of the few tags the script allows.

Keys of a card (absent when empty): ``i`` citation id, ``t`` test (index into the tests table),
``v`` verdict, ``a`` action (auto, review, human, FAIL, warn, error), ``u`` status, ``c`` confidence (see
``_confidence``), ``l`` claim, ``q`` quotes, ``d`` document, ``w`` where the quote
is (words), ``s`` section text (index into the sections table), ``p`` the quoted passages' spans in
it, ``g`` tags, ``x`` further ``[term, class, parts]`` entries, ``k`` how many times it was checked.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from pytest_citecheck._report.row import ReportRow

Part = str | list[Any]

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


class Tables:
    """The texts cards share, each kept once, in the order first used: a section text with its label
    (``[label, text]``) and a test id (a string). A card points to them by their index."""

    def __init__(self) -> None:
        self.index: dict[tuple[str, ...], int] = {}

    def _add(self, key: tuple[str, ...]) -> tuple[int, bool]:
        index = self.index.get(key)
        if index is not None:
            return index, False
        index = self.index[key] = len(self.index)
        return index, True

    def entries(self, row: ReportRow) -> list[Any]:
        """The entries ``row`` is the first to use, in the order they take their indexes."""
        new: list[Any] = []
        test = row.test or ""
        if self._add(("t", test))[1]:
            new.append(test)
        label = section_label(row)
        if label is not None and self._add(("s", label, row.section_text or ""))[1]:
            new.append([label, row.section_text])
        return new

    def card(self, row: ReportRow, checks: int) -> dict[str, Any]:
        """``row``'s card, pointing to the entries ``entries`` gave (it must have been called first)."""
        label = section_label(row)
        section = None if label is None else self.index[("s", label, row.section_text or "")]
        return card(row, checks, self.index[("t", row.test or "")], section)


def section_label(row: ReportRow) -> str | None:
    """The label of the card's section text (its region's accessible name), or None: no text."""
    if not row.section_text:
        return None
    if row.spans:
        return f"Text of sections {row.section}, judged together"
    label = f"Text of section {row.section}" if row.section else "Text of the whole document"
    return label + (f" of {row.document}" if row.document else "")


def spans(row: ReportRow) -> list[list[int]]:
    """The quoted passages to highlight in the section text: valid, in order, none overlapping."""
    text = row.section_text or ""
    given = row.spans if row.spans else ([row.span] if row.span is not None else [])
    marked: list[list[int]] = []
    for start, end in sorted(given):
        if 0 <= start <= end <= len(text) and (not marked or start >= marked[-1][1]):
            marked.append([start, end])
    if marked and not text.isascii() and _ASTRAL.search(text):
        # The script slices the text in UTF-16 code units: a character beyond U+FFFF counts two.
        return [
            [start + len(_ASTRAL.findall(text, 0, start)), end + len(_ASTRAL.findall(text, 0, end))]
            for start, end in marked
        ]
    return marked


def where(row: ReportRow) -> str:
    """The card's Section: where the quote is (none for a fabricated one)."""
    if row.status == "missing" or row.verdict == "fabricated":
        return "not found in the source"
    if row.status is None and row.verdict == "errored":  # ``row.error_row_of_test``: the check raised before reading it
        return "none: the error is the test's, not a citation's"
    if row.sections:
        return f"{', '.join('§ ' + section for section in row.sections)} (judged together)"
    if row.section is None:
        return "none: the claim is judged against the whole document"
    return f"§ {row.section}"


def _is_approximate(row: ReportRow) -> bool:
    if row.approximate or row.status == "approximate" or row.get("approximate"):
        return True
    return row.similarity is not None and row.similarity < 1.0 and row.span is not None


# (predicate, code) for the fixed tags a card's heading carries, in order; the script has their words.
_TAGS: tuple[tuple[Callable[[ReportRow], bool], str], ...] = (
    (lambda row: row.action == "review", "review"),
    (lambda row: row.action == "human", "human"),
    (lambda row: row.stale, "stale"),
    (lambda row: row.misattributed, "elsewhere"),
    (lambda row: row.misattributed and row.failed, "FAIL"),
    (lambda row: row.misattributed and not row.failed, "warn"),
)


def tags(row: ReportRow) -> list[Part]:
    """The heading's tags: a fixed tag's code, or ``[class, words]``."""
    found: list[Part] = [code for applies, code in _TAGS if applies(row)]
    if row.flagged_questions:
        found.append(["flagged", f"flagged: {', '.join(row.flagged_questions)}"])
    if _is_approximate(row):
        detail = f" ({row.similarity:.2f})" if row.similarity is not None else ""
        found.append(["approx", f"approximate match{detail}"])
    return found


def _cited(row: ReportRow) -> list[Any] | None:
    """Where a misattributed citation said its quote is (the card's Section and Document say where it is)."""
    if not row.misattributed:
        return None
    cited = f"§ {row.cited_section}" if row.cited_section else "the document"
    if row.cited_document:
        cited += f" of {row.cited_document}"
    return ["Cited", "", [f"{cited}: the quote is not there"]]


def _error(row: ReportRow) -> list[Any] | None:
    """Why an errored citation has no verdict: the exception's class and message, as the JSON report has them."""
    if not row.errored:
        return None
    error = row.error or {}
    return ["Error", "error", [["strong", str(error.get("type") or "error")], f": {error.get('message') or ''}"]]


def _closest(row: ReportRow) -> list[Any] | None:
    closest = row.closest
    if not closest:
        return None
    passage = str(closest.get("text") or closest.get("passage") or closest.get("quote") or "")
    place = f"section {closest['section']}" if closest.get("section") else "the source"
    if closest.get("document"):
        place += f" of {closest['document']}"
    similarity = closest.get("similarity") if closest.get("similarity") is not None else closest.get("score")
    detail = f" (similarity {float(similarity):.2f})" if isinstance(similarity, int | float) else ""
    if row.removed:  # an altered quote: cut from this passage, less the words that turn its meaning
        words: list[Part] = []
        for word in row.removed:
            words += [", ", ["q", word]] if words else [["q", word]]
        parts = [f"Cut from {place}, but the elision removes ", *words, ", which turns the meaning; the passage says: "]
        return ["Altered", "", [*parts, ["q", passage]]]
    across = closest.get("across")
    if isinstance(across, list) and across:  # in the source, across a section border: where it starts
        spans = f"sections {across[0]} to {across[-1]}" + (
            f" of {closest['document']}" if closest.get("document") else ""
        )
        return [
            "Across sections",
            "",
            [f"In the source, but across {spans}, so nothing was judged; it starts: ", ["q", passage]],
        ]
    return ["Closest passage", "", [f"In {place}{detail}: ", ["q", passage]]]


def _question(name: str, answer: Mapping[str, Any], threshold: float) -> list[Any]:
    from pytest_citecheck._judge.questions import EXTRA_QUESTIONS

    concern = answer.get("concern")
    detail = f"concern {float(concern):.2f}" if concern is not None else "concern unknown"
    if answer.get("yes") is not None:
        detail += f", Jev's probability of yes {float(answer['yes']):.2f}"
    if answer.get("confident"):
        state: list[Part] = [
            ["strong", "flagged, confident"],
            f" (at or above auto_accept {threshold:.2f}): fails the test",
        ]
    elif answer.get("flagged"):
        state = [["strong", "flagged"], f" (below auto_accept {threshold:.2f}): needs review"]
    else:
        state = ["not flagged"]
    question = EXTRA_QUESTIONS.get(name)
    meaning = f": {question.concern}" if question is not None and answer.get("flagged") else ""
    return ["li", ["code", name], ": ", *state, f" ({detail}){meaning}"]


def _questions(row: ReportRow) -> list[Any] | None:
    """Jev's answers to the extra questions (option ``questions``) asked of this citation."""
    if not row.questions:
        return None
    items = [_question(str(name), answer, row.auto_accept) for name, answer in row.questions.items()]
    return ["Questions", "", [["ul.questions", *items]]]


def _decision(row: ReportRow) -> list[Any] | None:
    decision, stale = row.decision, row.stale_decision
    if decision:
        said = row.model_verdict or decision.get("model_verdict")
        how = " confirmed " if decision.get("action") == "confirm" else f" overrode Jev's {said} with "
        note = f" Note: “{decision['note']}”" if decision.get("note") else ""
        verdict = ["strong", str(decision.get("verdict"))]
        parts = [str(decision.get("by")), how, verdict, f" on {decision.get('at')}.{note}"]
        return ["Human decision", "decision", parts]
    if stale:
        words = (
            f" on {stale.get('at')}, but the claim, the section or the model has changed since, so it no "
            "longer applies. Review this citation again."
        )
        return [
            "Stale decision",
            "decision stale",
            [f"{stale.get('by')} decided ", ["strong", str(stale.get("verdict"))], words],
        ]
    return None


def _confidence(row: ReportRow) -> list[Any] | None:
    """``[drawn at, words, auto_accept, its words, below]``: the bar is drawn at what the gate used
    (the lower of the two); the words and the comparison are Python's, as every other report's."""
    confidence, threshold = row.gate_confidence, row.auto_accept
    if confidence is None or not math.isfinite(confidence) or not math.isfinite(threshold):
        return None
    return [confidence, row.confidence_cell, threshold, f"{threshold:.2f}", int(confidence < threshold)]


def _quotes(row: ReportRow) -> list[str] | None:
    if row.quotes:
        return list(row.quotes)
    return [row.quote] if row.quote else None


def card(row: ReportRow, checks: int, test: int, section: int | None) -> dict[str, Any]:
    """The card's object: ``test`` and ``section`` are the row's indexes in the page's tables."""
    extras = [extra for extra in (_error(row), _cited(row), _closest(row), _questions(row), _decision(row)) if extra]
    data: dict[str, Any] = {
        "i": row.id,
        "t": test,
        "v": row.verdict,
        "a": row.action,
        "u": row.status,
        "c": _confidence(row),
        "l": row.claim,
        "q": _quotes(row),
        "d": row.document,
        "w": where(row),
        "s": section,
        "p": spans(row) if section is not None else None,
        "g": tags(row),
        "x": extras,
        "k": checks if checks > 1 else None,
    }
    return {key: value for key, value in data.items() if value or value == 0 and key in "ts"}

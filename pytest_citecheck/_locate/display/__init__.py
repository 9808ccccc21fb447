"""The words a reader sees of a Markdown or reStructuredText section: its inline markup taken out, offsets kept.

A model that reads ``For the latest **psmisc** source, visit the [GitLab psmisc page](https://…)``
quotes "For the latest psmisc source, visit the GitLab psmisc page". Step 1 looks for a quote in a
section as written *and* in its displayed form (``WordIndex``): the layout's inline scanner
(``markdown``, ``rst``) lists the markup to take out as edits (start, end, replacement), and
``applied`` makes the displayed text and the ``OffsetMap`` from it back to the section's own text,
so that a quote found in the displayed form still reports offsets into the section as written.

What is markup, and what is not, is said in ``docs/matching.md`` (*Markup*). The scanners take out
only what a renderer would not show as text (delimiters, link destinations, role names); an
emphasis delimiter is taken out only with its partner, so a ``*`` of a multiplication, a list
bullet or a ``_`` inside an identifier stays; nothing inside code is touched.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from pytest_citecheck._late_imports import loaded
from pytest_citecheck._locate.offsets import OffsetMap

# The scanners (``markdown``, ``rst`` and their parts, some ten modules) are imported where a source of
# their layout is first read (``_late_imports.loaded``): a check of plain text, what most suites give,
# never loads them.
_MARKDOWN = "pytest_citecheck._locate.display.markdown"
_RST = "pytest_citecheck._locate.display.rst"
_RST_SUBSTITUTIONS = "pytest_citecheck._locate.display.rst_substitutions"
_EDITS = "pytest_citecheck._locate.display.edits"

# A link reference definition, ``[label]: destination`` (CommonMark 4.7): a reference link is a link
# only when its label is defined somewhere in the document.
# A footnote (``[^1]``, GitHub's extension) is not a link: its mark is shown as a number.
_DEFINITION = re.compile(r"^ {0,3}\[(?!\^)((?:[^\[\]\\\n]|\\.){1,999})\]:", re.MULTILINE)
# A section with none of these characters has no markup to take out.
_MARKDOWN_CHARACTERS = re.compile(r"[*_`\[<&\\>~]")
_RST_CHARACTERS = re.compile(r"[*_`:\\]|--")
# The empty parentheses Sphinx writes after the name of a function or method role.
_CALL = re.compile(r"(?<=\w)\(\)")


@dataclass(frozen=True)
class Markup:
    """How a document marks text up: its layout (``markdown`` or ``rst``); for Markdown, the labels its
    link reference definitions define; for reStructuredText, whether it defines any ``replace`` substitution
    (each section is read for the ones it defines itself: ``displayed``)."""

    layout: str
    labels: frozenset[str] = frozenset()
    defines_substitutions: bool = False

    def displayed(self, text: str) -> tuple[str, OffsetMap] | None:
        """``text`` as a reader sees it, and the map back to ``text``; None when it has no markup to take out.

        A reStructuredText substitution reference shows its text only where ``text`` (a section) holds its
        definition too: Jev is sent the section as written, so a quote of a text defined in another section
        would be judged against a bare ``|name|`` (``.. |safety| replace:: not safe`` at the end of the page
        makes "is |safety| for your data" read "is not safe", which Jev would never see)."""
        if self.layout == "markdown":
            if _MARKDOWN_CHARACTERS.search(text) is None:
                return None
            edits = loaded(_MARKDOWN).markdown_edits(text, self.labels)
        else:
            rst = loaded(_RST)
            defined_here = (
                loaded(_RST_SUBSTITUTIONS).substitutions(text, rst.rst_shown) if self.defines_substitutions else {}
            )
            if _RST_CHARACTERS.search(text) is None and not (defined_here and "|" in text):
                return None
            edits = rst.rst_edits(text, defined_here)
        if not edits:
            return None
        shown: tuple[str, OffsetMap] = loaded(_EDITS).applied(text, edits)
        return shown

    def quoted(self, quote: str) -> tuple[str, ...]:
        """The words a quote of this markup's displayed text may stand for, where they differ from the quote: the
        quote's own markup taken out, and for reStructuredText that again without the ``()`` Sphinx shows after a
        function role's name (``:func:`partial``` shows as ``partial()``, and its displayed text here is
        ``partial``; a literal's ``()``, ````get()````, stays in the displayed text, so the first form is kept), and the
        quote with only its ``--`` read as dashes (``dashed``: a quote of a page docutils rendered)."""
        shown = self.displayed(quote)
        text = shown[0] if shown is not None else quote
        forms = [text]
        if self.layout == "rst" and "()" in text:
            forms.append(_CALL.sub("", text))
        if self.layout == "rst" and "--" in quote:
            forms.append(loaded(_RST).dashed(quote))
        return tuple(form for form in dict.fromkeys(forms) if form != quote)


def widened(step: OffsetMap, original: str, start: int, end: int) -> tuple[int, int]:
    """``step.original_span(start, end)`` over markup that touches the passage: a passage of the displayed
    words ``the latest psmisc`` is ``the latest **psmisc**`` as written, ``GitLab psmisc page`` is
    ``[GitLab psmisc page](https://…)`` (a lone escaping backslash is not taken in)."""
    first, last = step.original_span(start, end)
    starts = step.norm_starts
    for point, is_end in ((start, False), (end, True)):
        at = bisect_left(starts, point)
        if at < len(starts) and starts[at] == point and step.norm_ends[at] == point:
            markup = (step.orig_starts[at], step.orig_ends[at])
            if original[markup[0] : markup[1]] != "\\":
                first, last = (first, markup[1]) if is_end else (markup[0], last)
    return first, last


MARKUP_LAYOUTS = ("markdown", "rst")


def markup_of(source: object) -> Markup | None:
    """The markup of a ``Source`` split as Markdown or reStructuredText (its ``format``); None for any other."""
    layout = getattr(source, "format", None)
    if layout == "markdown":
        label_key = loaded(_MARKDOWN).label_key
        text = getattr(source, "text", "") or ""
        labels = frozenset(label_key(found.group(1)) for found in _DEFINITION.finditer(text)) if "]:" in text else ()
        return Markup("markdown", frozenset(labels))
    if layout == "rst":
        text = getattr(source, "text", "") or ""
        return Markup("rst", defines_substitutions=loaded(_RST_SUBSTITUTIONS).defines_any(text))
    return None


def section_markup(source: object) -> Callable[[str], Markup | None]:
    """Section id -> its markup: a joined corpus says it per section (``markup``), a ``Source`` for all of them."""
    per_section = getattr(source, "markup", None)
    if isinstance(per_section, Mapping):
        return per_section.get
    markup = markup_of(source)
    return lambda _section_id: markup


def layouts_of(source: object) -> tuple[str, ...]:
    """The markup layouts of a source's sections (a joined corpus may have both), in a fixed order."""
    per_section = getattr(source, "markup", None)
    if isinstance(per_section, Mapping):
        return tuple(sorted({markup.layout for markup in per_section.values()}))
    layout = getattr(source, "format", None)
    return (layout,) if layout in MARKUP_LAYOUTS else ()

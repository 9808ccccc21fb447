"""What a cassette file that cannot be read is said to be: its errors, and the causes a reader can act on.

``cassette_file`` reads and checks the file; what it refuses is a ``CassetteFormatError`` (a
``CassetteDigestError`` for an interaction edited since it was recorded). The causes named here are
those whose symptom would mislead: a file cut short (an interrupted copy, a partial checkout) reads as
an interaction edited by hand, or as a YAML parser's error, where it ends early (``cut_short``); a
symbolic link that points to nothing reads as a cassette never recorded, and one in a loop as the
system's errno text (``refuse_broken_link``); a file where a directory of the path should be (``not_a_directory``).
"""

from __future__ import annotations

from pathlib import Path

from pytest_citecheck._files import broken_link
from pytest_citecheck._recording.layout import ends_whole

# How a file this plugin writes marks its parts (PyYAML's layout, ``layout.py``'s too).
_FORMAT_LINE = "citecheck_format:"
_INTERACTION = "\n- request:"
_DIGEST = "\n  digest: "
# Format 3's first line (a file of it ends with ``END``), and format 2's.
_MARKED = "citecheck_format: 3\n"
_MARKED_CRLF = "citecheck_format: 3\r\n"
_FORMAT_2 = "citecheck_format: 2\n"


class CassetteFormatError(ValueError):
    """A cassette written by a newer pytest-citecheck, or not a cassette at all, or a damaged one.

    ``remedy`` is what to do about it, when that is not the usual "restore it or re-record it".
    """

    def __init__(self, message: str, remedy: str | None = None) -> None:
        super().__init__(message)
        self.remedy = remedy


class CassetteDigestError(CassetteFormatError):
    """An interaction that no longer matches its digest (edited after it was recorded), or a file that has none."""


class CassetteCutShortError(CassetteFormatError):
    """A cassette file that ends early: the rest of it was never written (an interrupted copy or checkout)."""


def cut_short(text: str, error: BaseException | None) -> CassetteCutShortError | None:
    """For a file of ours that failed its checks with ``error`` (None: it passed them, but lacks its end
    line): the error saying it ends early, if it does; else None.

    Every file this plugin writes ends with a line break. One of format 3 ends with its end line
    (``layout.END``, its last key), so one that lacks it was cut short wherever it ends: in the middle of
    a line, before its first interaction, inside an interaction (before its digest, say), or just after
    an interaction's digest, where the rest would otherwise read as misses. A file whose end key a merge
    or a YAML tool moved inside it, not on its last line, was not cut: it is read as it is.

    A file of format 2 (pytest-citecheck 0.1) has no end line, so its cuts are told from the text alone:
    one that ends in the middle of a line, before its first interaction, or inside its last interaction
    (a key missing, a body that is not JSON: what would otherwise be named as damage or a hand edit).
    Its last interaction whole but for its digest is cut just before its digest line when every
    interaction before it has its own, and with no interaction before it, the message says it may
    instead be a digest line deleted; with none of several having a digest (the digests deleted) it is
    said to have no digest. A format-2 file cut just after an interaction's digest cannot be told from
    a whole cassette of fewer interactions.
    """
    if not (text.startswith(_FORMAT_LINE) or _FORMAT_LINE.startswith(text)):
        return None
    marked = text.startswith(_MARKED) or text.startswith(_MARKED_CRLF)
    if marked and ends_whole(text):
        return None  # whole: what failed is not its end
    interactions = text.count(_INTERACTION)
    if not text.endswith("\n"):
        where: str | None = f"in the middle of line {text.count(chr(10)) + 1}"
    elif not interactions:  # none in this plugin's layout: none at all, or items another YAML writer laid out
        items = "\n- " in text or "interactions: []\n" in text
        where = "where its end line should be" if marked and items else "before its first interaction"
    elif marked:
        where = _where_in_format_3(text, interactions)
    else:
        where = _where_in_format_2(text, error, interactions)
    if where is None:
        return None
    return CassetteCutShortError(
        f"the file ends early, {where} ({len(text.encode()):,} bytes): it is incomplete, as an interrupted "
        "copy or download, or a partial checkout, leaves a file"
    )


def _where_in_format_3(text: str, interactions: int) -> str:
    """Where a file of format 3 that ends with a line end, but not with its end line, was cut."""
    if _DIGEST in text[text.rindex(_INTERACTION) :]:
        return f"after interaction {interactions}, where its end line should be"
    return f"inside interaction {interactions}, before its digest"


def _where_in_format_2(text: str, error: BaseException | None, interactions: int) -> str | None:
    """Where a file of format 2 that ends with a line end was cut, when its text shows it; else None."""
    if _DIGEST in text[text.rindex(_INTERACTION) :]:
        return None  # a whole file of fewer interactions, to the reader
    if not isinstance(error, CassetteDigestError):
        return f"inside interaction {interactions}, before its digest"
    if text.count(_DIGEST) != interactions - 1:
        return None  # the digests of several interactions deleted, not one file cut
    if interactions > 1:
        return f"inside interaction {interactions}, before its digest"
    if not text.startswith(_FORMAT_2):
        return None  # an older format's own error (format 1 has no digests) says more
    return (
        "inside interaction 1, before its digest, or its digest line was deleted, which a cassette of format 2 "
        "cannot tell apart: it has no end line"
    )


def refuse_broken_link(path: Path) -> None:
    """A symbolic link on the cassette's path that points to nothing, or loops, is named with what to do."""
    from pytest_citecheck._text import shell_quote  # on the error's path only

    broken = broken_link(path)
    if broken is not None:
        link, loops, cause = broken
        kind = "file" if link == path else "directory"  # the cassette, or a directory of its path
        mend = f"point it at a {kind}" if loops else f"restore the {kind} it points to"
        if not loops and link == path:
            mend += " (in another checkout? a Git LFS or git-annex object not fetched?)"
        raise CassetteFormatError(
            cause, f"{mend}, or remove the link (rm {shell_quote(link)}) and record the test again"
        ) from None


def not_a_directory(path: Path) -> CassetteFormatError:
    """A file where a directory of the cassette's path should be: named, for it is what to move."""
    in_the_way = next((parent for parent in path.parents if parent.exists() and not parent.is_dir()), path.parent)
    return CassetteFormatError(
        f"{in_the_way} is a file, where the cassette's directory should be", "remove or rename that file"
    )

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

# How a file this plugin writes marks its parts (PyYAML's layout, ``layout.py``'s too).
_FORMAT_LINE = "citecheck_format:"
_INTERACTION = "\n- request:"
_DIGEST = "\n  digest: "


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


def cut_short(text: str, error: BaseException) -> CassetteCutShortError | None:
    """For a file of ours that failed its checks with ``error``: the error saying it ends early, if it
    does; else None.

    Every file this plugin writes ends with a line break, after its last interaction's digest. One cut
    at any byte ends in the middle of a line, or (cut at a line's end) before its first interaction, or
    inside its last: that interaction then fails a check (a key missing, a body that is not JSON) that
    would otherwise be named as damage or a hand edit. An interaction whole but for its digest is a file
    cut just before its digest line only when every interaction before it has its own; with none (the
    digests deleted) it is said to have no digest. A file cut just after an interaction's digest is a
    whole cassette of fewer interactions: what it lacks reads as misses.
    """
    if not (text.startswith(_FORMAT_LINE) or _FORMAT_LINE.startswith(text)):
        return None
    interactions = text.count(_INTERACTION)
    if not text.endswith("\n"):
        where = f"in the middle of line {text.count(chr(10)) + 1}"
    elif not interactions:
        where = "before its first interaction"
    elif _DIGEST in text[text.rindex(_INTERACTION) :]:
        return None
    elif isinstance(error, CassetteDigestError) and (interactions == 1 or text.count(_DIGEST) != interactions - 1):
        return None
    else:
        where = f"inside interaction {interactions}, before its digest"
    return CassetteCutShortError(
        f"the file ends early, {where} ({len(text.encode()):,} bytes): it is incomplete, as an interrupted "
        "copy or download, or a partial checkout, leaves a file"
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

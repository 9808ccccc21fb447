"""Edits (start, end, replacement) made to a text, with the map from the result back to it."""

from __future__ import annotations

from pytest_citecheck._locate.offsets import OffsetMap

Edit = tuple[int, int, str]


def applied(text: str, edits: list[Edit]) -> tuple[str, OffsetMap]:
    """``text`` with ``edits`` made, and the map from the result back to ``text``.

    Edits that touch are made as one (one anchor); an edit overlapping the one before it is not made:
    text is only ever kept, never lost, when two scanners' edits disagree.
    """
    merged: list[Edit] = []
    for edit in sorted(edits):
        if merged and edit[0] < merged[-1][1]:
            continue
        if merged and edit[0] == merged[-1][1]:
            merged[-1] = (merged[-1][0], edit[1], merged[-1][2] + edit[2])
        else:
            merged.append(edit)
    step = OffsetMap()
    step.anchors([edit[0] for edit in merged], [edit[1] for edit in merged], [len(edit[2]) for edit in merged])
    kept = [text[end:start] for (_, end, _), (start, _, _) in zip([(0, 0, ""), *merged], merged)]
    pieces = [piece for pair in zip(kept, [edit[2] for edit in merged]) for piece in pair]
    pieces.append(text[merged[-1][1] :] if merged else text)
    return "".join(pieces), step

"""Ground floor: how counts, confidences and plain-text tables are written, in one place.

Every report (the terminal summary, the gate's failure message, ``citecheck review`` and
``citecheck calibrate``, the drift lines) formats through these, so a confidence reads the same
everywhere and a missing one shows the same placeholder.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

# What a confidence cell shows when no model was asked (a fabricated or misattributed quote).
NO_CONFIDENCE = "-"


def plural(count: int, noun: str) -> str:
    """``1 citation``, ``2 citations``: the count and the noun, with an ``s`` unless it is one."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def format_confidence(value: float | None) -> str:
    """A confidence to two decimals, or :data:`NO_CONFIDENCE` when there is none."""
    return NO_CONFIDENCE if value is None else f"{float(value):.2f}"


def render_table(rows: Sequence[Sequence[str]], *, right: Collection[int] = (), indent: str = "  ") -> list[str]:
    """Fixed-width lines: columns two spaces apart, each line indented and stripped on the right.

    ``rows`` includes the header. Columns whose index is in ``right`` are right-aligned (numbers);
    the others are left-aligned.
    """
    if not rows:
        return []
    widths = [max(len(cells[i]) for cells in rows) for i in range(len(rows[0]))]
    lines = []
    for cells in rows:
        padded = [
            cell.rjust(width) if index in right else cell.ljust(width)
            for index, (cell, width) in enumerate(zip(cells, widths))
        ]
        lines.append((indent + "  ".join(padded)).rstrip())
    return lines

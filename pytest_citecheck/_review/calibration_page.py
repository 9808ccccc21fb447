"""The page ``citecheck calibrate --html PATH`` writes: the recommendation and a risk–coverage plot.

One self-contained file like the HTML report: inline styles, an inline SVG, no script, no fonts or
images from anywhere. The plot puts coverage (the share of citations whose verdict stands on its
own) across and risk (the share of those a human overturned) up, one point per candidate
threshold, with the 95% Wilson upper bound beside the observed rate, the ``--max-error`` line,
today's setting and the recommendation. The threshold table under it is the plot's text equivalent.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from pytest_citecheck._files import atomic_write_text
from pytest_citecheck._report.page import escape as _e
from pytest_citecheck._report.page import generated_at, html_page
from pytest_citecheck._review.calibration import CONFIDENCE_LEVEL, Calibration, Result, ThresholdRow
from pytest_citecheck._text import plural

STYLE = """
:root { --ink:#1b1f24; --muted:#57606a; --line:#d0d7de; --panel:#f6f8fa; --rate:#0969da; --bound:#bc4c00;
  --limit:#cf222e; --ok:#1a7f37; --focus:#0969da; }
* { box-sizing: border-box; }
body { margin:0; font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif; color:var(--ink); background:#fff; }
header, main, footer { max-width:60rem; margin:0 auto; padding:0 1.25rem; }
header { padding-top:1.25rem; }
h1 { font-size:1.6rem; margin:.2rem 0; }
h2 { font-size:1.2rem; margin:1.75rem 0 .5rem; }
h3 { font-size:1.05rem; margin:1.25rem 0 .4rem; }
.meta { color:var(--muted); margin:.2rem 0; }
.verdict { border:1px solid var(--line); border-left:6px solid var(--ok); border-radius:.5rem; padding:.75rem 1rem;
  background:var(--panel); font-size:1.1rem; }
.verdict.none { border-left-color:var(--limit); }
.verdict .note { display:block; font-size:.9rem; color:var(--muted); margin-top:.25rem; }
figure { margin:1rem 0; }
figcaption { color:var(--muted); font-size:.9rem; }
svg { width:100%; height:auto; max-width:760px; display:block; }
svg text { font:12px system-ui,-apple-system,"Segoe UI",Roboto,sans-serif; fill:var(--ink); }
svg .axis { stroke:var(--ink); stroke-width:1; }
svg .grid { stroke:var(--line); stroke-width:1; }
svg .rate { fill:none; stroke:var(--rate); stroke-width:2; }
svg .bound { fill:none; stroke:var(--bound); stroke-width:2; stroke-dasharray:6 4; }
svg .limit { stroke:var(--limit); stroke-width:1.5; stroke-dasharray:3 3; }
svg .today { stroke:var(--muted); stroke-width:1.5; stroke-dasharray:4 3; }
svg .chosen { stroke:var(--ok); stroke-width:2; }
svg .dot-rate { fill:var(--rate); } svg .dot-bound { fill:var(--bound); }
svg .pick { fill:none; stroke:var(--ok); stroke-width:3; }
svg .threshold-label { font-size:11px; fill:var(--muted); }
svg .threshold-tick { stroke:var(--muted); stroke-width:1; }
table { border-collapse:collapse; font-size:.9rem; margin:.5rem 0 1rem; }
caption { text-align:left; color:var(--muted); padding-bottom:.25rem; }
th, td { border-bottom:1px solid var(--line); padding:.2rem .7rem; text-align:right; }
th:first-child, td:first-child { text-align:left; }
tr.recommended { background:#dafbe1; font-weight:600; } tr.today { background:#fff8c5; }
code { font-family:ui-monospace,SFMono-Regular,Menlo,monospace; background:var(--panel); padding:.05rem .3rem; border-radius:.25rem; }
.table-wrap { max-height:32rem; overflow:auto; border:1px solid var(--line); border-radius:.4rem; display:inline-block; }
.table-wrap:focus { outline:3px solid var(--focus); outline-offset:2px; }
footer { margin:2rem auto; color:var(--muted); font-size:.85rem; }
"""

# The plot's geometry, in SVG user units.
WIDTH, HEIGHT = 760, 430
LEFT, RIGHT, TOP, BOTTOM = 84, 150, 20, 80
PLOT_W, PLOT_H = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM


def _pct(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value * 100:.{digits}f}%"


def y_limit(calibration: Calibration) -> float:
    """The top of the risk axis: room for the max-error line and the observed rates, in steps of 5%."""
    rates = [row.rate for row in calibration.rows if row.rate is not None]
    top = max([calibration.max_error * 3, *(rate * 1.15 for rate in rates)])
    return min(1.0, math.ceil(top * 20 - 1e-9) / 20)


def _x(coverage: float) -> float:
    return LEFT + coverage * PLOT_W


def _y(risk: float, limit: float) -> float:
    return TOP + PLOT_H * (1 - risk / limit)


def _points(rows: Sequence[ThresholdRow], value: str, limit: float) -> list[tuple[float, float, ThresholdRow]]:
    drawn = []
    for row in sorted(rows, key=lambda row: -row.threshold):  # coverage grows as the threshold falls
        risk = row.rate if value == "rate" else row.upper_bound
        if row.stood and row.coverage is not None and risk is not None:
            drawn.append((_x(row.coverage), _y(risk, limit), row))
    return drawn


def risk_coverage_svg(calibration: Calibration, plot_id: str) -> str:
    """The risk–coverage plot of one calibration as an inline SVG."""
    limit = y_limit(calibration)
    clip = f"{plot_id}-clip"
    parts = [
        f'<svg viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-labelledby="{plot_id}-title {plot_id}-desc" '
        f'id="{plot_id}" xmlns="http://www.w3.org/2000/svg">',
        f'<title id="{plot_id}-title">Risk–coverage of auto_accept thresholds 0.50 to 0.99</title>',
        f'<desc id="{plot_id}-desc">{_e(_description(calibration))}</desc>',
        f'<defs><clipPath id="{clip}"><rect x="{LEFT}" y="{TOP}" width="{PLOT_W}" height="{PLOT_H}"/></clipPath></defs>',
        *_axes(limit, calibration.rows[0].population),
        *_markers(calibration, limit),
        # The curves and their points, clipped to the plot (an upper bound of 100% on a handful of
        # decisions would squash the part that matters).
        f'<g clip-path="url(#{clip})">',
        *_curves(calibration, limit),
        "</g>",
        *_threshold_axis(_points(calibration.rows, "rate", limit)),
        *_legend(),
        "</svg>",
    ]
    return "\n".join(parts)


def _axes(limit: float, population: int) -> list[str]:
    """Grid and axes: coverage 0–100% across, risk 0–limit up."""
    parts = []
    for step in range(6):
        x = _x(step / 5)
        parts.append(f'<line class="grid" x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{TOP + PLOT_H}"/>')
        parts.append(f'<text x="{x:.1f}" y="{TOP + PLOT_H + 18}" text-anchor="middle">{step * 20}%</text>')
    for step in range(6):
        risk = limit * step / 5
        y = _y(risk, limit)
        parts.append(f'<line class="grid" x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + PLOT_W}" y2="{y:.1f}"/>')
        parts.append(f'<text x="{LEFT - 8}" y="{y + 4:.1f}" text-anchor="end">{_pct(risk)}</text>')
    return parts + [
        f'<line class="axis" x1="{LEFT}" y1="{TOP + PLOT_H}" x2="{LEFT + PLOT_W}" y2="{TOP + PLOT_H}"/>',
        f'<line class="axis" x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + PLOT_H}"/>',
        f'<text x="{LEFT + PLOT_W / 2:.1f}" y="{HEIGHT - 14}" text-anchor="middle">'
        f"coverage: citations whose verdict stands on its own (of {population})</text>",
        f'<text transform="translate(16 {TOP + PLOT_H / 2:.1f}) rotate(-90)" text-anchor="middle">'
        "risk: decided citations a human overturned</text>",
    ]


def _markers(calibration: Calibration, limit: float) -> list[str]:
    """The max-error line; today's setting and the recommendation as vertical lines at their coverage."""
    parts = []
    if calibration.max_error <= limit:
        y = _y(calibration.max_error, limit)
        parts.append(f'<line class="limit" x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + PLOT_W}" y2="{y:.1f}"/>')
        parts.append(f'<text x="{LEFT + PLOT_W + 6}" y="{y + 4:.1f}">max error {_pct(calibration.max_error)}</text>')
    population = calibration.rows[0].population
    if population:
        x = _x(1 - calibration.review_now / population)
        parts.append(f'<line class="today" x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{TOP + PLOT_H}"/>')
        label = "today (mixed)" if calibration.mixed_settings else f"today {calibration.current:g}"
        parts.append(f'<text x="{x + 4:.1f}" y="{TOP + 12}" class="label-today">{label}</text>')
    chosen = calibration.recommended_row
    if chosen is not None and chosen.coverage is not None:
        x = _x(chosen.coverage)
        parts.append(f'<line class="chosen" x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{TOP + PLOT_H}"/>')
        parts.append(
            f'<text x="{x + 4:.1f}" y="{TOP + 28}" class="label-recommended">recommended {chosen.threshold:g}</text>'
        )
    return parts


def _curves(calibration: Calibration, limit: float) -> list[str]:
    parts = []
    for value, css in (("bound", "bound"), ("rate", "rate")):
        points = _points(calibration.rows, value, limit)
        if points:
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y, _ in points)
            parts.append(f'<polyline class="{css}" points="{path}"/>')
        for x, y, row in points:
            parts.append(
                f'<circle class="dot-{css}" cx="{x:.1f}" cy="{y:.1f}" r="2.6" data-threshold="{row.threshold:.2f}">'
                f"<title>{_e(_point_title(row))}</title></circle>"
            )
    chosen = calibration.recommended_row
    if chosen is not None and chosen.coverage is not None:
        parts.append(
            f'<circle class="pick" cx="{_x(chosen.coverage):.1f}" cy="{_y(chosen.upper_bound, limit):.1f}" r="7">'
            f"<title>{_e('recommended: ' + _point_title(chosen))}</title></circle>"
        )
    return parts


def _legend() -> list[str]:
    """The legend, right of the plot."""
    legend_x = LEFT + PLOT_W + 10
    return [
        f'<line class="rate" x1="{legend_x}" y1="{TOP + 60}" x2="{legend_x + 24}" y2="{TOP + 60}"/>',
        f'<text x="{legend_x + 30}" y="{TOP + 64}">overturn rate</text>',
        f'<line class="bound" x1="{legend_x}" y1="{TOP + 82}" x2="{legend_x + 24}" y2="{TOP + 82}"/>',
        f'<text x="{legend_x + 30}" y="{TOP + 86}">{CONFIDENCE_LEVEL:.0%} upper bound</text>',
    ]


def _threshold_axis(points: Sequence[tuple[float, float, ThresholdRow]]) -> list[str]:
    """A second row under the coverage axis: where the thresholds 0.9, 0.8, ... fall, where there is room."""
    row_y = TOP + PLOT_H + 38
    parts = [f'<text class="threshold-label" x="{LEFT - 8}" y="{row_y}" text-anchor="end">auto_accept</text>']
    last_x = -math.inf
    for x, _, row in points:
        if round(row.threshold * 100) % 10 == 0 and x - last_x >= 28:
            parts.append(
                f'<line class="threshold-tick" x1="{x:.1f}" y1="{row_y - 17}" x2="{x:.1f}" y2="{row_y - 12}"/>'
            )
            parts.append(
                f'<text class="threshold-label" x="{x:.1f}" y="{row_y}" text-anchor="middle">{row.threshold:.1f}</text>'
            )
            last_x = x
    return parts


def _point_title(row: ThresholdRow) -> str:
    return (
        f"auto_accept {row.threshold:.2f}: {_pct(row.coverage, 0)} stand on their own; "
        f"{row.overturned} of {row.stood} decided overturned ({_pct(row.rate)}), upper bound {_pct(row.upper_bound)}"
    )


def _description(calibration: Calibration) -> str:
    chosen = calibration.recommended_row
    head = f"One point per threshold over {plural(calibration.decisions, 'decision')}. "
    if chosen is None:
        return head + "No threshold keeps the upper bound at or below the maximum error."
    return head + (
        f"At the recommended {chosen.threshold:g}, {_pct(chosen.coverage, 0)} of citations stand on their own and "
        f"the upper bound on errors is {_pct(chosen.upper_bound)}; today's setting is {calibration.current:g}."
    )


def threshold_table(calibration: Calibration, table_id: str) -> str:
    rows = []
    for row in calibration.rows:
        classes = []
        notes = []
        if row.threshold == calibration.recommended:
            classes.append("recommended")
            notes.append("recommended")
        if row.threshold == calibration.current:
            classes.append("today")
            notes.append("today")
        label = f"{row.threshold:.2f}" + (f" ({', '.join(notes)})" if notes else "")
        rows.append(
            f'<tr class="{" ".join(classes)}"><td>{_e(label)}</td><td>{row.stood}</td><td>{row.overturned}</td>'
            f"<td>{_pct(row.rate)}</td><td>{_pct(row.upper_bound)}</td><td>{row.to_review}</td>"
            f"<td>{_pct(row.coverage, 0)}</td></tr>"
        )
    return (
        f'<div class="table-wrap" tabindex="0" role="region" aria-labelledby="{table_id}-caption">'
        f'<table id="{table_id}"><caption id="{table_id}-caption">Each candidate threshold: decided citations that '
        "would have stood on their own, how many a human overturned, the rate and its "
        f"{CONFIDENCE_LEVEL:.0%} Wilson upper bound, and the review workload</caption>"
        '<thead><tr><th scope="col">auto_accept</th><th scope="col">stand</th><th scope="col">overturned</th>'
        '<th scope="col">rate</th><th scope="col">upper bound</th><th scope="col">to review</th>'
        '<th scope="col">coverage</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def _verdict(calibration: Calibration) -> str:
    none = " none" if calibration.recommended is None else ""
    notes = []
    if calibration.provisional and not calibration.refused:
        notes.append(f"Provisional: {plural(calibration.decisions, 'decision')}; 200 make it firm.")
    if calibration.paste:
        notes.append(f"Paste: <code>{_e(calibration.paste)}</code>")
    note = "".join(f'<span class="note">{text}</span>' for text in notes)
    return f'<p class="verdict{none}" role="status">{_e(calibration.summary())}{note}</p>'


def _calibration_block(calibration: Calibration, plot_id: str) -> str:
    parts = [_verdict(calibration)]
    if calibration.refused:
        return "\n".join(parts)
    parts += [
        f'<figure><div class="plot">{risk_coverage_svg(calibration, plot_id)}</div>',
        "<figcaption>Lower the threshold and more verdicts stand on their own (right); the price is the risk "
        "that one of them is wrong (up). The recommendation is the lowest threshold whose upper bound (dashed) is "
        "at or under the max-error line (dotted).</figcaption>"
        "</figure>",
        threshold_table(calibration, f"{plot_id}-table"),
    ]
    return "\n".join(parts)


def render_page(result: Result, *, generated: str | None = None) -> str:
    overall = result.overall
    if result.any_model:
        under = "pooled across models: " + ", ".join(f"{name} {count}" for name, count in sorted(result.pooled.items()))
    else:
        under = f"under {result.model} ({result.model_from})"
    meta = [
        f"{plural(overall.decisions, 'decision')} {under}",
        "reviews files: " + ", ".join(str(path) for path in result.reviews_files),
    ]
    if result.left_out:
        meta.append(
            f"left out: {plural(sum(result.left_out.values()), 'decision')} under other models ("
            + ", ".join(f"{name} {count}" for name, count in sorted(result.left_out.items()))
            + ")"
        )
    meta.append(f"today's auto_accept {overall.current:g} ({overall.current_from}); max error {_pct(result.max_error)}")
    sections = [
        '<section aria-labelledby="overall-heading">',
        '<h2 id="overall-heading">All decisions</h2>',
        _calibration_block(overall, "plot-overall"),
        "</section>",
    ]
    if result.by:
        title = "test module" if result.by == "test-module" else "marker scope"
        sections.append(f'<section aria-labelledby="groups-heading"><h2 id="groups-heading">By {_e(title)}</h2>')
        for index, group in enumerate(result.groups, start=1):
            sections.append(
                f"<h3>{_e(group.group)} · {_e(plural(group.decisions, 'decision'))}</h3>"
                + _calibration_block(group, f"plot-group-{index}")
            )
        sections.append("</section>")
    main = "\n".join(sections)
    meta_html = "".join(f'<p class="meta">{_e(line)}</p>' for line in meta)
    body = f"""<header>
<h1>auto_accept calibration</h1>
{meta_html}
<p class="meta">generated {_e(generated_at(generated))} by <code>citecheck calibrate</code></p>
</header>
<main>
{main}
</main>
<footer>A decided citation "stands" at a threshold when Jev's confidence is at or above it; a human overturned it
when the reviews file records <code>action: override</code>. The upper bound is the {CONFIDENCE_LEVEL:.0%} Wilson
score interval's.</footer>"""
    return html_page(f"auto_accept calibration: {plural(overall.decisions, 'decision')}", STYLE, body)


def write_page(result: Result, path: str | Path) -> None:
    """Write the page to ``path`` atomically (through a symbolic link: the file it points to)."""
    atomic_write_text(Path(path), render_page(result), follow_links=True)

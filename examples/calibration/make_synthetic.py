"""Write the SYNTHETIC reviews file and report that docs/review.md ("Tuning auto_accept") calibrates.

Nothing here came from a real model or a real reviewer. The script invents a suite of three test
modules whose citations Jev judged (model ``jev-1.12``), and a reviewer who decided every citation
below its test's ``auto_accept`` plus a spot check of one in three above it (``citecheck review
--all``). Whether Jev was wrong follows a fixed calibration curve: the lower the confidence, the
likelier a human overturns the verdict. Forty older decisions under ``jev-1.11`` show how decisions
under another model are left out.

Deterministic (a seeded generator, fixed timestamps): running it again writes the same bytes.

    python examples/calibration/make_synthetic.py
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from pytest_citecheck._files import atomic_write_text
from pytest_citecheck._report.run_report import REPORT_VERSION, Report
from pytest_citecheck._review.decisions import Reviews, review_key

HERE = Path(__file__).resolve().parent
SEED = 15
MODEL, OLD_MODEL = "jev-1.12", "jev-1.11"
SPOT_CHECK = 0.4  # share of the citations above auto_accept a reviewer looked at anyway
# module -> (citations, auto_accept, where auto_accept is set: a marker's node id, or None for the ini default)
SUITE: dict[str, tuple[int, float, str | None]] = {
    "tests/test_refunds.py::TestRefundPolicy::test_answer": (200, 0.9, "tests/test_refunds.py::TestRefundPolicy"),
    "tests/test_shipping.py::test_answer": (300, 0.8, None),
    "tests/test_warranty.py::test_answer": (90, 0.85, "tests/test_warranty.py"),
}
VERDICTS = ("verified", "unsupported", "contradicted")
OTHER = {"verified": "unsupported", "unsupported": "verified", "contradicted": "unsupported"}
REPORT_FIELDS = (
    "test",
    "id",
    "status",
    "section",
    "verdict",
    "confidence",
    "auto",
    "model",
    "auto_accept",
    "model_verdict",
    "auto_accept_scope",
)
LABEL = (
    "SYNTHETIC data for docs/review.md, written by examples/calibration/make_synthetic.py: "
    "no real model or reviewer was involved."
)


def chance_jev_is_wrong(confidence: float) -> float:
    """The synthetic calibration curve: about 1 in 2 wrong at 0.5, 1 in 6 at 0.7, 1 in 50 at 0.9."""
    return 0.5 * ((1 - confidence) / 0.5) ** 2.8


def confidence(rng: random.Random) -> float:
    # Most verdicts are confident, with a long tail of unsure ones (like Jev's on a real suite).
    return round(min(0.99, max(0.3, 1 - rng.betavariate(1.0, 7))), 2)


def citation_row(
    rng: random.Random, test: str, index: int, auto_accept: float, scope: str | None, model: str
) -> dict[str, Any]:
    topic = test.split("test_")[1].split(".")[0]
    claim = f"Synthetic claim {index} about {topic}."
    section = f"{1 + index % 9}.{1 + index % 4}"
    section_text = f"{section}. Synthetic section text for claim {index} about {topic}; the quoted passage."
    quote = "the quoted passage"
    start = section_text.index(quote)
    said = rng.choices(VERDICTS, weights=(70, 20, 10))[0]
    conf = confidence(rng)
    return {
        "test": test,
        "id": f"{topic}_{index:03d}",
        "status": "found",
        "section": section,
        "verdict": said,
        "confidence": conf,
        "auto": conf >= auto_accept,
        "model": model,
        "claim": claim,
        "quote": quote,
        "span": [start, start + len(quote)],
        "auto_accept": auto_accept,
        "section_text": section_text,
        "review_key": review_key(claim, section_text, model),
        "model_verdict": said,
        "decision": None,
        "stale_decision": None,
        "reviews_file": "citecheck-reviews.json",
        "auto_accept_scope": scope,
    }


def build() -> tuple[Reviews, Report]:
    rng = random.Random(SEED)
    reviews = Reviews(HERE / "citecheck-reviews.json")
    report = Report()
    day = 0
    for test, (count, auto_accept, scope) in SUITE.items():
        for index in range(count):
            row = citation_row(rng, test, index, auto_accept, scope, MODEL)
            jev_wrong = rng.random() < chance_jev_is_wrong(row["confidence"])
            looked = not row["auto"] or rng.random() < SPOT_CHECK
            if looked:
                day += 1
                human = OTHER[row["model_verdict"]] if jev_wrong else None
                at = f"2026-{1 + day // 120:02d}-{1 + day % 28:02d}T10:00:00Z"
                entry = reviews.record(row, human, by="synthetic-reviewer", note="synthetic", at=at)
                row["decision"] = {**entry, "key": row["review_key"]}
                row["verdict"] = entry["verdict"]
            report.extend([row])
    # Decisions from before the suite moved to jev-1.12: kept in the file, left out of calibration.
    for index in range(40):
        row = citation_row(rng, "tests/test_shipping.py::test_answer", 500 + index, 0.8, None, OLD_MODEL)
        jev_wrong = rng.random() < chance_jev_is_wrong(row["confidence"])
        reviews.record(
            row,
            OTHER[row["model_verdict"]] if jev_wrong else None,
            by="synthetic-reviewer",
            note="synthetic",
            at=f"2025-12-{1 + index % 28:02d}T10:00:00Z",
        )
    return reviews, report


def main() -> int:
    reviews, report = build()
    data = json.loads(reviews.to_text())
    atomic_write_text(reviews.path, json.dumps({"synthetic": LABEL, **data}, indent=2, sort_keys=True) + "\n")
    # The report keeps the fields calibration reads, one citation per line, to stay small.
    rows = [{name: row.data[name] for name in REPORT_FIELDS} for row in report.rows]
    lines = ",\n".join(json.dumps(row, ensure_ascii=False) for row in rows)
    text = f'{{"synthetic": {json.dumps(LABEL)}, "version": {REPORT_VERSION}, "results": [\n{lines}\n]}}\n'
    atomic_write_text(HERE / "report.json", text)
    print(
        f"wrote {reviews.path} ({len(reviews.decisions)} decisions) and {HERE / 'report.json'} ({len(report)} citations)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

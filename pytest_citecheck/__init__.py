"""pytest-citecheck: fail tests whose LLM citations are fabricated or contradicted.

Step 1 finds each quote in the source in code (a quote that is not there is ``fabricated``, and no
model is asked); step 2 asks TypeSafe's Jev how the quote's section relates to the claim; step 3
lets verdicts at or above ``auto_accept`` stand and sends the rest to a human. Every Jev call is
recorded in a vcrpy cassette, so CI replays with no key and no network.
"""

from __future__ import annotations

from .api import assert_citations_supported, check_citations
from .checker import Checker, CitationReviewWarning, CitationsNotSupported
from .citations import Citation
from .errors import (
    CassetteError,
    CassetteMissError,
    CitationInputError,
    CitecheckError,
    JudgeError,
    OptionError,
    SourceError,
)
from .recordings import ModelMismatchError, ModelPinWarning
from .results import CitationResult, Judgement, Status, Verdict
from .sources import Source

__version__ = "0.1.0"

__all__ = [
    "CassetteError",
    "CassetteMissError",
    "Checker",
    "Citation",
    "CitationInputError",
    "CitationResult",
    "CitationReviewWarning",
    "CitationsNotSupported",
    "CitecheckError",
    "JudgeError",
    "Judgement",
    "ModelMismatchError",
    "ModelPinWarning",
    "OptionError",
    "Source",
    "SourceError",
    "Status",
    "Verdict",
    "__version__",
    "assert_citations_supported",
    "check_citations",
]

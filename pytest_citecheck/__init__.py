"""pytest-citecheck: fail tests whose LLM citations are fabricated or contradicted.

Step 1 finds each quote in the source in code (a quote that is not there is ``fabricated``, and no
model is asked); step 2 asks TypeSafe's Jev how the quote's section relates to the claim; step 3
lets verdicts at or above ``auto_accept`` stand and sends the rest to a human. Every Jev call is
recorded in a vcrpy cassette, so CI replays with no key and no network.

The public names below are loaded on first use: pytest imports this package for every run, and a
suite that checks no citation should not pay for the checker, the matcher or the formats.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from pytest_citecheck import _dependencies

# The package's version: pyproject.toml reads it from here (setuptools' dynamic version).
__version__ = "0.1.0"

# An unsupported typesafe-sdk or vcrpy is one clear error here, not a failure deep inside a test.
_dependencies.check_installed_versions()

# Public name -> the module (relative to this package) that defines it.
_EXPORTS = {
    "assert_citations_supported": "_check.api",
    "check_citations": "_check.api",
    "Checker": "_check.checker",
    "CitationReviewWarning": "_gate.enforce",
    "CitationMisattributedWarning": "_gate.enforce",
    "CitationsNotSupported": "_gate.enforce",
    "Citation": "_citations.model",
    "CitationLike": "_citations.model",
    "CitationDict": "_citations.model",
    "CheckOptions": "_options",
    "CassetteError": "_errors",
    "CassetteMissError": "_errors",
    "CheckerUnavailableError": "_errors",
    "ClientUnavailableError": "_errors",
    "CitationInputError": "_errors",
    "CitecheckError": "_errors",
    "JudgeError": "_errors",
    "OptionError": "_errors",
    "SourceError": "_errors",
    "SourceWarning": "_errors",
    "ModelMismatchError": "_recording.lifecycle.pinning",
    "ModelPinWarning": "_recording.lifecycle.pinning",
    "CitationResult": "_results",
    "Judgement": "_results",
    "Status": "_results",
    "Verdict": "_results",
    "Source": "_sources.source",
    "Corpus": "_sources.corpus",
    "check_retrieval": "_locate.retrieval",
    "RetrievalResult": "_locate.retrieval",
    "citations_from_markers": "_citations.markers",
    "citations_from_openai": "_citations.openai",
}

__all__ = [
    "CassetteError",
    "CassetteMissError",
    "CheckOptions",
    "Checker",
    "CheckerUnavailableError",
    "Citation",
    "CitationDict",
    "CitationInputError",
    "CitationMisattributedWarning",
    "CitationLike",
    "CitationResult",
    "CitationReviewWarning",
    "CitationsNotSupported",
    "CitecheckError",
    "ClientUnavailableError",
    "Corpus",
    "JudgeError",
    "Judgement",
    "ModelMismatchError",
    "ModelPinWarning",
    "OptionError",
    "RetrievalResult",
    "Source",
    "SourceError",
    "SourceWarning",
    "Status",
    "Verdict",
    "__version__",
    "assert_citations_supported",
    "check_citations",
    "check_retrieval",
    "citations_from_markers",
    "citations_from_openai",
]
assert set(__all__) == {*_EXPORTS, "__version__"}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


if TYPE_CHECKING:
    from pytest_citecheck._check.api import assert_citations_supported, check_citations
    from pytest_citecheck._check.checker import Checker
    from pytest_citecheck._citations.markers import citations_from_markers
    from pytest_citecheck._citations.model import Citation, CitationDict, CitationLike
    from pytest_citecheck._citations.openai import citations_from_openai
    from pytest_citecheck._errors import (
        CassetteError,
        CassetteMissError,
        CheckerUnavailableError,
        CitationInputError,
        CitecheckError,
        ClientUnavailableError,
        JudgeError,
        OptionError,
        SourceError,
        SourceWarning,
    )
    from pytest_citecheck._gate.enforce import (
        CitationMisattributedWarning,
        CitationReviewWarning,
        CitationsNotSupported,
    )
    from pytest_citecheck._locate.retrieval import RetrievalResult, check_retrieval
    from pytest_citecheck._options import CheckOptions
    from pytest_citecheck._recording.lifecycle.pinning import ModelMismatchError, ModelPinWarning
    from pytest_citecheck._results import CitationResult, Judgement, Status, Verdict
    from pytest_citecheck._sources.corpus import Corpus
    from pytest_citecheck._sources.source import Source

"""A licence assistant: it answers questions about open-source licences from Debian's licence texts.

The knowledge base is a ``Corpus``: every file in ``documents/`` (copied verbatim from Debian's
``/usr/share/common-licenses/``), split into its numbered sections. Each answer comes with the
citations the app's model gave for it: a document of the corpus, usually a section, and the quote
the claim rests on. The model's answers are kept in ``answers.json``, as an app's test suite keeps
the outputs it checks, so the example runs with no model at all.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_citecheck import Corpus

HERE = Path(__file__).parent
LICENCES = Corpus.from_dir(HERE / "documents", pattern="*")
ANSWERS: dict[str, dict[str, Any]] = {
    answer["question"]: answer for answer in json.loads((HERE / "answers.json").read_text(encoding="utf-8"))
}


def ask(question: str) -> dict[str, Any]:
    """The app's answer to ``question``: ``{"answer": text, "citations": [...]}``."""
    return ANSWERS[question]

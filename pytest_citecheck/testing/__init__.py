"""A Jev-compatible HTTP server on 127.0.0.1, for rehearsing the record path without TypeSafe's API.

``JevServer`` speaks the SDK's wire schema for ``POST /v1/systemone``: it checks for a bearer key,
reads the JSON body, and answers each question from a script you give it (a function of the
claim and section, or a fixed table), with latency and faults on demand. It keeps every request it
received, so a test can count them. pytest-citecheck's own suite records through it.

To rehearse recording your own suite, run it as a command and point the SDK at it (docs/cassettes.md,
"Rehearse recording without a key")::

    $ citecheck serve --answers answers.json --port 8765 --require-real-key &
    $ TYPESAFE_BASE_URL=http://127.0.0.1:8765 TYPESAFE_API_KEY=rehearsal \\
          pytest --citecheck-record-mode=rewrite --citecheck-cassette-dir=rehearsal-cassettes

(``python -m pytest_citecheck.testing`` is the same command.) In a test of your own, start it in a
fixture (``monkeypatch`` is that test's)::

    @pytest.fixture
    def jev(monkeypatch):
        with JevServer(answer=lambda claim, section: ("supports", 0.95)) as server:
            monkeypatch.setenv("TYPESAFE_BASE_URL", server.url)
            monkeypatch.setenv("TYPESAFE_API_KEY", "rehearsal")
            yield server

The room: ``server`` (``JevServer`` and the answers it scripts), ``answers`` (the answers table of
the command, read again when its file changes), ``serve`` (the command). Nothing here is imported
by the plugin itself.
"""

from pytest_citecheck.testing.answers import ANY_CLAIM, AnswersError, AnswersFile, load_answers, table_answerer
from pytest_citecheck.testing.serve import main
from pytest_citecheck.testing.server import (
    LABELS,
    REPLAY_PLACEHOLDER_KEY,
    Answerer,
    JevServer,
    ReceivedRequest,
    Reply,
    Screener,
    choice_answer,
    confidence_of,
    probabilities_for,
)

__all__ = [
    "ANY_CLAIM",
    "LABELS",
    "REPLAY_PLACEHOLDER_KEY",
    "Answerer",
    "AnswersError",
    "AnswersFile",
    "JevServer",
    "ReceivedRequest",
    "Reply",
    "Screener",
    "choice_answer",
    "confidence_of",
    "load_answers",
    "main",
    "probabilities_for",
    "table_answerer",
]

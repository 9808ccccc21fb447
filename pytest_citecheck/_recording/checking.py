"""Step 4 around one citation's request: open the test's cassette, record or replay, compare with before.

What the checker asks of the recording, one call each: ``open_cassette`` (a cassette that cannot
be read fails the citation with a ``CassetteError``), ``asking`` (the cassette's patches and a count
of replayed answers around one request; an answer is kept only once it was read without error) and
``against_recordings`` (model pinning, and after a rewrite the drift from the replaced recording).
A model-pinning warning is noted per citation and said once per cause for the run (``ModelPins``).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pytest_citecheck._errors import CassetteError, CitecheckError, warn_at_caller
from pytest_citecheck._judge.judgement import Judgement
from pytest_citecheck._judge.outgoing import script_sends
from pytest_citecheck._recording.cassette import TestCassette
from pytest_citecheck._recording.damage import CassetteCutShortError, CassetteDigestError
from pytest_citecheck._recording.plays import PlayCount, counting_plays
from pytest_citecheck._text import shell_quote


def open_cassette(cassette: TestCassette | None, citation_id: str, record_hint: str) -> None:
    """Open the test's cassette once, before its first request; one that cannot be used fails this citation,
    and so does a cassette closed when its test ended."""
    __tracebackhide__ = True
    if cassette is None:
        return
    if cassette.closed:  # its answer would never be saved, nor its failure seen by the test
        raise CassetteError(
            citation_id,
            f"checked after its test ended: the test's cassette {cassette.path} was closed when the test ended "
            "(a thread or task the test did not wait for?), and this check's answer would never be recorded",
            "wait for the check before the test ends: join its thread, or take future.result() in the test",
        )
    if cassette.is_open:
        return
    try:
        cassette.open()
    except CitecheckError:
        raise
    except CassetteDigestError as error:  # an interaction changed since it was recorded
        raise CassetteError(
            citation_id,
            f"cassette {cassette.path}: {error}",
            f"re-record with {record_hint} (or restore the file from version control)",
        ) from None
    except CassetteCutShortError as error:  # an interrupted copy or checkout
        raise CassetteError(
            citation_id,
            f"cannot read cassette {cassette.path}: {error}",
            f"restore it from version control (git checkout -- {shell_quote(cassette.path)}), "
            f"or re-record with {record_hint}",
        ) from None
    except Exception as error:  # corrupt YAML, a newer format, a damaged or unreadable file
        raise CassetteError(
            citation_id,
            f"cannot read cassette {cassette.path}: {error}",
            getattr(error, "remedy", None)
            or "restore it from version control, or delete it and re-record with --citecheck-record-mode=rewrite",
        ) from None


@contextlib.contextmanager
def asking(cassette: TestCassette | None) -> Iterator[PlayCount]:
    """Around one request: the cassette's patches, and a count of the answers it replayed.

    Counted per thread (and per task), so concurrent citations each know whether theirs was replayed;
    vcrpy's patches are on only while Jev is asked: the app's own HTTP in between is not ours to see.
    With no cassette (a script's ``Checker``), the request is still paced, shared when identical and read
    within the size bound (``_judge.outgoing.script_sends``).
    """
    active = cassette.active() if cassette is not None else script_sends()
    with counting_plays() as played, active:
        yield played
    # Reached only when the answer was read without error: only accepted answers are ever saved.
    if cassette is not None:
        cassette.accept(played)


def import_for_threads() -> None:
    """Import now what a request thread would otherwise import lazily (``against_recordings``; a
    miss explained by ``_judge.failures`` asks ``vcr_seam``): called before any thread starts. Two
    threads importing at once compile at once under pytest's assertion rewriter, which CPython 3.11
    can fail ("AST constructor recursion depth mismatch"). Not at start-up: a run that checks
    nothing imports none of it."""
    import pytest_citecheck._recording.lifecycle.drift
    import pytest_citecheck._recording.lifecycle.pinning
    import pytest_citecheck._recording.vcr_seam  # noqa: F401


def replayed(judgement: Judgement, played: PlayCount) -> Judgement:
    """The judgement, marked as replayed when its answer came from the cassette.

    ``judgement`` is the one just read from this request's answer, which nothing else holds yet: it
    is marked in place (``dataclasses.replace`` costs as much as building it again, per citation).
    """
    if played.count:
        object.__setattr__(judgement, "replayed", True)  # frozen: set once, before anyone sees it
    return judgement


# Held while ``ModelPins.say`` claims its causes in the run's ``said``: two threads of one test (pytest-run-parallel)
# meeting the same cause at once would both find it unsaid and both warn. One lock for every run's set: a
# claim is a lookup and an add, taken once per check that noted a cause.
_CLAIMING = threading.Lock()


@dataclass
class ModelPins:
    """One check's model-pinning warnings (``against_recordings`` notes them per citation, on any thread or
    task), said once per cause (``say``), after its citations are judged, at the test's line.

    ``said``: the causes already said, which the plugin keeps for the run (an xdist worker for its share of
    it; a script's checker, which has no cassette, never notes one). One warning per citation flooded pytest's summary: 500 citations
    recorded with the default alias were 500 warnings, each naming another citation, which pytest cannot
    group; once per test would still be one per test, for a remedy (pin the model) that is the run's.
    """

    said: set[tuple[str, str]] = field(default_factory=set)
    # (citation index, citation id, cause, remedy), in whatever order the citations were judged.
    noted: list[tuple[int, str, str, str]] = field(default_factory=list)

    def note(self, index: int, citation_id: str, cause: str, remedy: str) -> None:
        self.noted.append((index, citation_id, cause, remedy))  # one append: safe from any thread

    def say(self, outcomes: dict[int, Any]) -> None:
        """One ``ModelPinWarning`` per cause not yet said, naming the citations of this check it concerns, in
        citation order. Made an error (``filterwarnings = error``), it is the outcome of the first of them that
        has a result, as the warning of that citation was before: the check fails with it, never the run."""
        __tracebackhide__ = True
        if not self.noted:
            return
        from pytest_citecheck._recording.lifecycle.pinning import ModelPinWarning, pin_warning_text

        causes: dict[tuple[str, str], list[tuple[int, str]]] = {}
        for index, citation_id, cause, remedy in sorted(self.noted):
            causes.setdefault((cause, remedy), []).append((index, citation_id))
        self.noted.clear()
        with _CLAIMING:  # checked and added at once: said by the first thread that meets it, never by two
            unsaid = [key for key in causes if key not in self.said]
            self.said.update(unsaid)
        for cause, remedy in unsaid:
            concerned = causes[(cause, remedy)]
            try:
                warn_at_caller(
                    ModelPinWarning(pin_warning_text([citation for _, citation in concerned], cause, remedy))
                )
            except Warning as error:
                judged = [index for index, _ in concerned if not isinstance(outcomes.get(index), BaseException)]
                if judged:  # else each of them failed already, and the check fails with that
                    outcomes[judged[0]] = error


def against_recordings(
    cassette: TestCassette | None,
    citation: tuple[int, str],
    request: tuple[str, str],
    judgement: Judgement,
    *,
    strict_model: bool,
    drift_tolerance: float,
    record_hint: str,
    pins: ModelPins,
) -> dict[str, Any] | None:
    """Model pinning (noted in ``pins``, or fail when strict) and, after a rewrite, the drift from the replaced recording.

    ``citation`` is its index in the check and its id; ``request`` the claim and the section text Jev read.
    """
    __tracebackhide__ = True
    from pytest_citecheck._recording.lifecycle.drift import drift, previous_answer
    from pytest_citecheck._recording.lifecycle.pinning import ModelMismatchError, model_problem

    if cassette is None:
        return None
    index, citation_id = citation
    claim, section_text = request
    recorded = cassette.interaction_for(claim, section_text)
    requested = recorded[0].get("model") if recorded is not None else None
    problem = model_problem(requested, judgement.model, replayed=judgement.replayed)
    if problem is not None:
        kind, cause, remedy = problem
        if strict_model and kind == "mismatch":
            raise ModelMismatchError(citation_id, cause, f"{remedy} ({record_hint})")
        pins.note(index, citation_id, cause, remedy)
    if not cassette.previous:
        return None
    before = previous_answer(claim, section_text, cassette.previous)
    if before is None:
        return None
    change = drift(before, judgement.choice, judgement.confidence, judgement.probabilities, drift_tolerance)
    return {**before, "drift": change}

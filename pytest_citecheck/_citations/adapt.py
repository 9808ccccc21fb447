"""What a citation is, and turning what the user passed into one.

Users hand us dicts (``{"id", "claim", "quote", "section"}``) or objects with those attributes
(dataclasses, pydantic models, their own classes), or an LLM SDK's answer. A list of plain citation
dicts, what most suites pass, is read here at once (``_plain_dicts``); anything else, each SDK's
shapes and the ``pytest_citecheck_adapt_citation`` hook, is read by ``shapes``, whose modules (one per
SDK) are loaded the first time a check is given something other than plain dicts.
``adapt_answer`` validates every citation up front and keeps a bad one as ``invalid`` (by id, with
its error) so the others are still checked; ``coverage`` says what the answer's text leaves uncited.
Either way the citations end with their documents named as the source knows them (``resolved``).
"""

from __future__ import annotations

from typing import Any

from pytest_citecheck._citations.coverage import Adapted
from pytest_citecheck._citations.model import Citation
from pytest_citecheck._citations.plain import adapt_citation, plain_dict_citation
from pytest_citecheck._citations.resolving import resolved
from pytest_citecheck._late_imports import loaded
from pytest_citecheck._sources.corpus import Corpus
from pytest_citecheck._sources.source import Source

__all__ = ["Adapted", "Citation", "adapt_answer", "adapt_citation", "adapt_citations"]


def adapt_citations(citations: Any, hooks: Any = None, *, source: Source | Corpus | None = None) -> list[Citation]:
    """Validate a list of user citations; ids must be unique so results and recordings can name them.

    ``hooks`` (pytest's hook relay) lets ``pytest_citecheck_adapt_citation`` turn shapes we do not
    know into dicts first. ``source`` is what the citations will be checked against: with a
    ``Corpus``, an Anthropic citation's ``document_index`` / ``document_title`` select a document,
    and a document a citation names by path or file name is matched to the corpus's id for it. With
    one named ``Source``, an adapter's citation naming that document cites it: its document is dropped.
    """
    adapted = adapt_answer(citations, hooks, source=source)
    if adapted.invalid:
        raise next(iter(adapted.invalid.values()))
    return adapted.citations


def adapt_answer(citations: Any, hooks: Any = None, *, source: Source | Corpus | None = None) -> Adapted:
    """``adapt_citations``, with the sentences of the answer's own text that cite nothing (``coverage``)."""
    plain = _plain_dicts(citations, hooks)
    if plain is not None:
        # Plain dicts are no SDK shape and cite no text of an answer; none has its document named by an adapter.
        return Adapted(resolved(plain, set(), source), [], {})
    # An SDK's answer: its shapes' modules load the first time one is checked, one thread at a time.
    shapes = loaded("pytest_citecheck._citations.shapes")
    adapted: Adapted = shapes.adapted_in_general(citations, hooks, source=source)
    return adapted


def _plain_dicts(citations: Any, hooks: Any) -> list[Citation] | None:
    """The citations of a list of plain citation dicts, each read at once (``plain_dict_citation``), or None
    when anything in it asks for more (the general path reads it then, from the start).

    Only when no ``pytest_citecheck_adapt_citation`` implementation is registered: the hook is called
    for every citation, and with none registered it answers None for each. A list or tuple is no
    whole answer (``shapes._parts``), and a dict whose keys are all a citation's is no SDK shape (each shape
    needs a key a citation has not: ``type``, ``text``, ``object``, ``message``, ...). A dict the
    general path would refuse, or read as several citations, is left to it, so its error is the same.
    """
    if type(citations) is not list and type(citations) is not tuple:
        return None
    if hooks is not None and not _no_adapt_hook(hooks):
        return None
    adapted = []
    for position, raw in enumerate(citations):
        citation = plain_dict_citation(raw, position)
        if citation is None:
            return None
        adapted.append(citation)
    return adapted


def _no_adapt_hook(hooks: Any) -> bool:
    """No ``pytest_citecheck_adapt_citation`` implementation is registered (pluggy's hook relay says so).

    Anything else (a relay that cannot say, a stand-in for one) is called for every citation as before.
    """
    caller = getattr(hooks, "pytest_citecheck_adapt_citation", None)
    implementations = getattr(caller, "get_hookimpls", None)
    return implementations is not None and callable(implementations) and implementations() == []

"""Model pinning: the model that answered a recording against the model the test asks for."""

from __future__ import annotations

import re

from pytest_citecheck._errors import JudgeError
from pytest_citecheck._secrets import redact_known
from pytest_citecheck._text import quoted_id, visible_lines

_ALIAS = re.compile(r"^[^\d]*$")  # no version number at all: jev-latest, jev-preview


class ModelPinWarning(UserWarning):
    """A recording made with, or replayed for, another model than the one the test asks for."""


# How many of the citations one warning concerns it quotes by id; the rest are counted ("and 495 more").
NAMED = 5
ONCE = "(said once per run (under xdist, once per worker), at the first check it concerns: later checks are not warned again)"


def pin_warning_text(citation_ids: list[str], cause: str, remedy: str) -> str:
    """The one ``ModelPinWarning`` of a run for one cause: the citations of the check that met it first (how
    many, the first ``NAMED`` by id), the cause, the remedy, and that it is not said again. The model is the
    server's text: shown harmlessly (a proxy's controls, or the key it echoed, in a warning printed raw)."""
    if len(citation_ids) == 1:
        who = f"citation {quoted_id(citation_ids[0])}"
    else:
        shown = ", ".join(quoted_id(citation) for citation in citation_ids[:NAMED])
        more = f" and {len(citation_ids) - NAMED} more" if len(citation_ids) > NAMED else ""
        who = f"{len(citation_ids)} citations ({shown}{more})"
    return redact_known(visible_lines(f"{who}: {cause}\n  -> {remedy}\n  {ONCE}"))


class ModelMismatchError(JudgeError):
    """With ``--citecheck-strict-model``: the recorded answer came from another model than the one asked for."""


def is_alias(model: str) -> bool:
    """A model name without a version (``jev-latest``): what it means changes when TypeSafe moves it."""
    return bool(_ALIAS.match(model))


def answered_as_asked(requested: str, answered: str) -> bool:
    """The answering model is the requested one (``jev-1.12`` is answered by ``jev-1.12`` or ``jev-1.12.3``)."""
    return answered == requested or answered.startswith(requested + ".")


def model_problem(requested: str | None, answered: str | None, *, replayed: bool) -> tuple[str, str, str] | None:
    """(kind, cause, remedy) when this answer's model is not one the test can rely on, else None.

    ``alias``: recorded just now with an alias (a warning, as TypeSafe advises pinning);
    ``mismatch``: the answer came from another model than the one asked for, or is replayed for
    an alias that may have moved since (what ``--citecheck-strict-model`` fails on).
    """
    if not requested or not answered:
        return None
    if is_alias(requested):
        return _alias_problem(requested, answered, replayed=replayed)
    if not answered_as_asked(requested, answered):
        return (
            "mismatch",
            f"the answer came from model {answered!r}, but the test asks for {requested!r}",
            f"re-record with the model you mean, or {pin_advice(answered)}",
        )
    return None


def pin_advice(answered: str) -> str:
    """How to pin the model: the versioned id the response reported, never an alias."""
    where = "(or citecheck_model = {0} in the ini file, or model= in the marker)"
    if is_alias(answered):
        return (
            f"pin a versioned model: --citecheck-model=jev-<version> {where.format('jev-<version>')}; the response "
            f"named only {answered!r}, so take the version from TypeSafe's model list"
        )
    return f"pin the model: --citecheck-model={answered} {where.format(answered)}"


def _alias_problem(requested: str, answered: str, *, replayed: bool) -> tuple[str, str, str] | None:
    pin = pin_advice(answered)
    if not replayed:
        return (
            "alias",
            f"recorded with the alias {requested!r}, answered by {answered!r}: thresholds tuned on it may drift "
            "when TypeSafe points the alias at another version",
            pin,
        )
    if answered == requested:
        return None  # the server named no version: nothing to compare
    return (
        "mismatch",
        f"the recorded answer came from model {answered!r}, but the test asks for the alias {requested!r}, "
        "which may now name another version",
        f"{pin}, then re-record",
    )

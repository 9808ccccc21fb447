"""The exceptions pytest-citecheck raises, and the words they carry.

Every error here names what it is about (a citation, an option, a cassette), the cause, and the
remedy, because the person reading it is looking at a red test in CI with nothing else to go on.
None of them imports pytest: the plugin layer decides whether an error fails or errors a test.
pytest does not load this module in a run whose settings are valid and that checks no citation.
"""

from __future__ import annotations

import os
from contextvars import ContextVar, Token
from typing import Any

# The documentation site's address, for the messages here (defined beside the versions the package
# supports: pytest loads that module in every run, and the option table's help names pages too).
from pytest_citecheck._dependencies import DOCS_URL as DOCS_URL
from pytest_citecheck._dependencies import docs_url as docs_url

# This package's directory: frames in it are the plugin's own (``warn_at_caller``).
_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


class CitecheckError(Exception):
    """Base class of every error pytest-citecheck raises on purpose, but ``CitationsNotSupported``.

    ``CitationsNotSupported`` is a failed check, not an error: an ``AssertionError``, so pytest shows it
    as a test's failure; ``except CitecheckError`` does not catch it.

    Its message often quotes text from outside (a claim, an id, a server's error body, a field of a
    server's answer): it reads harmlessly wherever it is printed (``_text.visible_lines``: controls
    shown visibly, no line that starts a GitHub workflow command, even under ``--tb=native``), and
    with every known secret cut out (a proxy that echoed the key into an answer's ``choice`` had it
    printed by "unknown label", and written to JUnit XML).
    """

    def __str__(self) -> str:
        # Imported here: pytest loads this module with the plugin in every run, and most runs raise nothing.
        from pytest_citecheck._secrets import redact_known
        from pytest_citecheck._text import visible_lines

        return redact_known(visible_lines(super().__str__()))


def _named(citation: object) -> str:
    """The citation's id as a message names it: a long one (a generated or hostile id) is cut in the
    middle, so the message stays readable; the error's ``citation`` keeps it whole."""
    from pytest_citecheck._text import quoted_id

    if not isinstance(citation, str):
        return repr(citation)
    return quoted_id(citation, "the error's .citation holds it whole")


class CitationInputError(CitecheckError, ValueError):
    """A citation, a source or an argument that cannot be checked as given.

    ``citation`` is the id (or position) of the citation at fault, ``field`` the field that is wrong,
    ``detail`` the message without them (to name them again where a caller knows the citation).
    """

    def __init__(self, message: str, *, citation: str | None = None, field: str | None = None) -> None:
        self.citation = citation
        self.field = field
        self.message = message
        where = []
        if citation is not None:
            where.append(f"citation {_named(citation)}")
        if field is not None:
            where.append(f"field {field!r}")
        prefix = ", ".join(where)
        super().__init__(f"{prefix}: {message}" if prefix else message)

    def with_others(self, others: BaseException) -> CitationInputError:
        """This error, its message followed by ``others``': what the check raised for its other citations
        (a replay's misses, with the command that re-records them), so one failure names everything to fix.
        The same class, citation and field; ``others`` is its ``__cause__``."""
        detail = "\n".join("  " + line for line in Exception.__str__(others).split("\n"))
        combined = type(self)(
            f"{self.message}\nThe check raised for other citations too ({type(others).__name__}):\n{detail}",
            citation=self.citation,
            field=self.field,
        )
        combined.__cause__ = others
        return combined


class SourceError(CitationInputError):
    """A source document that cannot be split into sections.

    ``found`` and ``layout`` are set when a layout (a built-in format) found none of its sections:
    what it looked for, and its name (``_sources.formats.no_sections``).
    """

    found: str | None = None
    layout: str | None = None


class NoSectionsError(SourceError):
    """Raised by a built-in layout that found none of its sections: ``_sources.formats.split`` turns it into
    the ``SourceError`` the user sees, which says what to do (``no_sections``)."""


# While citations are judged on worker threads or in tasks (``_check.running``), a warning is held
# for the judging call (with its citation's index) rather than issued: from a worker thread, or a task
# the event loop runs, no frame leads back to the test, so it would name concurrent/futures/thread.py
# or asyncio's events.py. The call issues what it holds afterwards, at the test's line.
_HOLDING: ContextVar[tuple[int, list[tuple[int, Warning]]] | None] = ContextVar("citecheck_held_warnings", default=None)


def holding_warnings(index: int, held: list[tuple[int, Warning]]) -> Token[Any]:
    """From here on, in this thread or task, ``warn_at_caller`` adds ``(index, warning)`` to ``held``."""
    return _HOLDING.set((index, held))


def stop_holding(token: Token[Any]) -> None:
    _HOLDING.reset(token)


def warn_at_caller(warning: Warning) -> None:
    """Issue ``warning`` at the first frame outside pytest-citecheck: the line of the test that checked.

    Whichever way the test called (``assert_citations_supported``, the ``citecheck`` fixture, sync
    or async, on one thread or several), the warning names the user's file and line, not the plugin's.
    """
    __tracebackhide__ = True  # under ``filterwarnings = error`` the warning is raised here
    import sys
    import warnings

    holding = _HOLDING.get()
    if holding is not None:
        index, held = holding
        held.append((index, warning))
        return

    frame = sys._getframe(1)  # the caller of this function: stack level 2 for ``warnings.warn``
    level = 2
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
        level += 1
    warnings.warn(warning, stacklevel=level)


class SourceWarning(UserWarning):
    """A source document split in a way that will likely fail later: badly explained by any layout, or with
    sections too large for one Jev request. Said once, when the document is loaded."""


class OptionError(CitecheckError, ValueError):
    """A configuration value (flag, ini key, marker or call argument) that is not valid.

    ``origin`` says where it came from, e.g. ``--citecheck-auto-accept`` or
    ``@pytest.mark.citecheck(auto_accept=...)``.
    """

    def __init__(self, origin: str, message: str) -> None:
        self.origin = origin
        super().__init__(f"{origin}: {message}")


class JudgeError(CitecheckError):
    """Jev could not give a usable verdict for a citation (API error, timeout, malformed answer).

    The check fails closed: the citation counts as not verified and the test does not pass.
    """

    def __init__(self, citation: str, cause: str, remedy: str) -> None:
        from pytest_citecheck._secrets import redact_known

        # Cut here as well as in ``__str__``: the exception's repr (``pytest --debug``'s log of each
        # call) shows its arguments, not its message.
        self.citation = citation
        self.cause = redact_known(cause)
        self.remedy = redact_known(remedy)
        # Every citation's own error, in citation order: just this one, or those ``errors_together`` names.
        self.errors: tuple[BaseException, ...] = (self,)
        super().__init__(f"citation {_named(citation)}: {self.cause}\n  -> {self.remedy}")


class CassetteMissError(JudgeError):
    """Replay found no recorded answer for a citation's request.

    Replaying only, the check goes on past a miss (nothing is sent), so one check may miss for several
    citations, or miss for one and raise another error for another: it then raises one
    ``CassetteMissError`` that names each (``together``). ``misses``
    holds every citation's own error, in citation order (just this one for a single miss);
    ``citation`` and ``remedy`` are the first's.
    """

    def __init__(self, citation: str, cause: str, remedy: str) -> None:
        super().__init__(citation, cause, remedy)
        self.misses: tuple[CassetteMissError, ...] = (self,)

    @classmethod
    def together(cls, misses: list[CassetteMissError], others: list[BaseException]) -> CassetteMissError:
        """One error for a check whose replay missed for every citation of ``misses`` (two or more), each
        named with its cause and remedy; ``others``: what else the check raised, named after them (with
        one miss, at least one)."""
        from pytest_citecheck._text import plural

        cause = "\n".join(_indented(miss) for miss in misses)
        if others:
            also = plural(len(others), "other citation")
            cause += f"\nThe check raised for {also} too:\n" + "\n".join(_indented(error) for error in others)
        error = cls.__new__(cls)
        error.citation, error.cause, error.remedy, error.misses = (
            misses[0].citation,
            cause,
            misses[0].remedy,
            tuple(misses),
        )
        error.errors = (*misses, *others)
        have = "citations have" if len(misses) > 1 else "citation has"
        header = f"{len(misses)} {have} no recorded answer in the cassette (every other citation was judged from it):"
        CitecheckError.__init__(error, f"{header}\n{cause}")
        return error


def _indented(error: BaseException) -> str:
    """An error's unprocessed message (``Exception.__str__``), indented under a combined error's header:
    the combined error's own ``__str__`` makes it safe, once."""
    return "\n".join("  " + line for line in Exception.__str__(error).split("\n"))


def errors_together(errors: list[BaseException]) -> JudgeError:
    """One error for a check that raised for several citations and missed for none (a replay goes on past
    its errors: ``_check.running.failure``), naming each citation with its cause and remedy, in citation order.

    Of the class all of them share (two ``ModelMismatchError``: a ``ModelMismatchError``), else a
    ``JudgeError``; ``citation`` and ``remedy`` are the first's, ``errors`` each citation's own error.
    """
    shared = next(kind for kind in type(errors[0]).__mro__ if all(isinstance(error, kind) for error in errors))
    kind = shared if isinstance(shared, type) and issubclass(shared, JudgeError) else JudgeError
    first = errors[0]
    combined = kind.__new__(kind)
    combined.citation = first.citation if isinstance(first, JudgeError) else str(getattr(first, "citation", ""))
    combined.cause = "\n".join(_indented(error) for error in errors)
    combined.remedy = first.remedy if isinstance(first, JudgeError) else "see each citation's remedy above"
    combined.errors = tuple(errors)
    header = f"{len(errors)} citations could not be judged (each is named below, with its cause and remedy):"
    CitecheckError.__init__(combined, f"{header}\n{combined.cause}")
    return combined


class CassetteError(JudgeError):
    """A cassette file exists but cannot be used (corrupt YAML, unknown format version)."""


class CheckerUnavailableError(CitecheckError, RuntimeError):
    """``assert_citations_supported`` or ``check_citations`` called in a pytest run where no test's checker is bound.

    The plugin is not active (``-p no:citecheck``, autoloading disabled), or the call runs outside a
    test (at import time, from a session-scoped fixture). Nothing is sent to Jev.
    """


class ClientUnavailableError(CitecheckError, RuntimeError):
    """The client a check asks Jev through could not be had: a conftest's own ``citecheck_client`` (or
    ``citecheck_async_client``) that typesafe-sdk refused to build, for want of a key; an async
    ``citecheck_async_client`` of one's own that the test does not ask for, which cannot be set up from
    inside the test's running loop; or, outside pytest (a script's check, which asks Jev live), the
    SDK's own client, refused for want of a key.

    No citation of the check was asked; in a test each is reported ``errored``. The message names the
    fixture and where it is defined (a script's: the missing key), the cause and the way out (``cause``,
    ``remedy``).
    """

    def __init__(self, cause: str, remedy: str) -> None:
        self.cause, self.remedy = cause, remedy
        super().__init__(f"{cause}\n  -> {remedy}")


class CassettePathError(CitecheckError):
    """A test's cassette file cannot be used where it is: it cannot be written, or it would be shared.

    Not about one citation but about the file: the message names it, the cause and the remedy.
    """

    def __init__(self, path: object, cause: str, remedy: str) -> None:
        self.path = str(path)
        self.cause = cause
        self.remedy = remedy
        super().__init__(f"cassette {self.path}: {cause}\n  -> {remedy}")


class CassetteCollisionError(CassettePathError):
    """Two tests of one session would record into the same cassette file."""


class RecordingNotSavedError(CassettePathError):
    """A test's recording could not be written (a read-only directory, a path that is a directory)."""

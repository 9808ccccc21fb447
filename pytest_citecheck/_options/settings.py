"""The resolved settings (``Settings``).

Precedence, highest first: call > marker > command line > ini > default. The per-test keywords a
call takes (``CheckOptions``) are in ``keywords``, loaded when first named.

No ``from __future__ import annotations`` here, on purpose: ``typing.NamedTuple`` compiles a string
annotation into a ``ForwardRef`` for each field, and every pytest run builds this class.
"""

from collections.abc import Mapping
from typing import Any, NamedTuple

from pytest_citecheck._errors import OptionError
from pytest_citecheck._options.parsing import RecordMode, ReviewPolicy, UnusedPolicy
from pytest_citecheck._options.table import OPTIONS, OPTIONS_BY_NAME, PER_TEST_OPTIONS
from pytest_citecheck._verdicts import Verdict


class Settings(NamedTuple):
    """The resolved value of every option, for a session or for one check.

    A ``NamedTuple`` rather than a frozen dataclass: every pytest run builds this class (the plugin
    resolves the session's settings before collection), and a dataclass of 21 fields compiles five
    generated methods to do it: about a fifth of what loading the plugin cost.
    Immutable all the same; ``_replace`` is ``dataclasses.replace``.
    """

    auto_accept: float = 0.8
    model: str | None = None
    fail_on: frozenset[Verdict] = frozenset({Verdict.FABRICATED, Verdict.CONTRADICTED, Verdict.UNSUPPORTED})
    review: ReviewPolicy = "warn"
    record_mode: RecordMode = "none"
    concurrency: int = 8
    request_deadline: float | None = 240.0
    max_rpm: int | None = 1200
    max_tokens_per_second: int | None = 250_000
    screen: bool = False
    questions: tuple[str, ...] = ()
    fuzzy: float | None = None
    casefold: bool = False
    min_quote_length: int = 12
    window: int | None = None
    misattributed: str = "fail"
    min_citations: int = 1
    require_cited_sentences: bool = False
    cassette_dir: str = "cassettes"
    json: str | None = None
    unused: UnusedPolicy = "warn"
    strict_model: bool = False
    drift_tolerance: float = 0.05
    fail_on_flip: bool = False
    html: str | None = None
    reviews: str = "citecheck-reviews.json"
    estimate: bool = False
    estimate_input_price: float = 0.042
    estimate_output_price: float = 0.0

    @classmethod
    def resolve(cls, command_line: Mapping[str, Any], ini: Mapping[str, Any]) -> "Settings":
        """Session settings: command line over ini over default. Raises OptionError naming the source."""
        values: dict[str, Any] = {}
        for option in OPTIONS:
            if command_line.get(option.name) is not None:
                origin, raw = option.flag, command_line[option.name]
            elif ini.get(option.name) not in (None, "", []):
                origin, raw = f"ini {option.ini}", ini[option.name]
            else:
                values[option.name] = option.default
                continue
            try:
                values[option.name] = option.parse(raw)
            except ValueError as error:
                raise OptionError(origin, str(error)) from None
        return cls(**values)

    def override(self, overrides: Mapping[str, Any], origin: str) -> "Settings":
        """These settings with per-test keywords (from a marker or a call) applied on top."""
        if not overrides:
            return self
        changes: dict[str, Any] = {}
        for name, raw in overrides.items():
            if name not in PER_TEST_OPTIONS:
                raise OptionError(origin, f"unknown argument {name!r}; accepted: {', '.join(PER_TEST_OPTIONS)}")
            if raw is None and name != "model":
                continue
            try:
                changes[name] = OPTIONS_BY_NAME[name].parse(raw)
            except ValueError as error:
                raise OptionError(origin, f"{name}: {error}") from None
        return self._replace(**changes)


assert set(Settings._fields) == set(OPTIONS_BY_NAME), "Settings and OPTIONS must list the same knobs"

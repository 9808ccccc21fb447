"""Every knob of pytest-citecheck, declared once, and the one function that resolves them.

Each ``Option`` becomes a ``--citecheck-*`` flag and a ``citecheck_*`` ini key; the per-test ones
are also ``@pytest.mark.citecheck(...)`` and call keyword arguments. Precedence, highest first:
call > marker > command line > ini > default. ``docs/configuration.md`` is generated from this
table (``python -m pytest_citecheck options``), so the two cannot drift.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal, NamedTuple, TypedDict, get_args

from pytest_citecheck._errors import OptionError, docs_url
from pytest_citecheck._verdicts import Verdict, VerdictName

# The choices of the choice-valued knobs, as types (for the public signatures) and as tuples (for
# parsing and help), one from the other.
RecordMode = Literal["none", "once", "new_episodes", "all", "rewrite"]
UnusedPolicy = Literal["warn", "fail", "delete"]
ReviewPolicy = Literal["warn", "fail", "xfail", "skip"]
MisattributedPolicy = Literal["fail", "warn", "ignore"]
RECORD_MODES: tuple[RecordMode, ...] = get_args(RecordMode)
UNUSED_POLICIES: tuple[UnusedPolicy, ...] = get_args(UnusedPolicy)
REVIEW_POLICIES: tuple[ReviewPolicy, ...] = get_args(ReviewPolicy)
MISATTRIBUTED_POLICIES: tuple[MisattributedPolicy, ...] = get_args(MisattributedPolicy)
_OffWord = Literal[False, "none", "off"]


class CheckOptions(TypedDict, total=False):
    """The per-test settings a call takes as keyword arguments (and ``@pytest.mark.citecheck`` too).

    ``assert_citations_supported(citations, source, **options: Unpack[CheckOptions])``: a type
    checker reports a misspelt keyword or a value of the wrong type. ``None`` leaves a setting to
    the marker, the command line or the ini file (for ``model`` it means the SDK's default). Each
    key is a per-test ``Option`` below, with its meaning; ``tests/project/test_typing.py`` keeps the two in step.
    """

    auto_accept: float | None
    model: str | None
    fail_on: str | Iterable[Verdict | VerdictName] | None
    review: ReviewPolicy | None
    concurrency: int | None
    screen: bool | None
    fuzzy: float | _OffWord | None
    casefold: bool | None
    min_quote_length: int | None
    window: int | _OffWord | None
    misattributed: MisattributedPolicy | None
    questions: str | Iterable[str] | None


def _parse_fraction(raw: Any) -> float:
    if isinstance(raw, bool):
        raise ValueError(f"expected a number from 0 to 1, got {raw!r}")
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise ValueError(f"expected a number from 0 to 1, got {raw!r}") from None
    if not math.isfinite(value) or not 0.0 <= value <= 1.0:
        raise ValueError(f"expected a number from 0 to 1, got {raw!r}")
    return value


def _parse_model(raw: Any) -> str | None:
    if raw is None:
        return None
    if not isinstance(raw, str) or not raw.strip() or any(ch.isspace() for ch in raw.strip()):
        raise ValueError(f"expected a model name such as 'jev-1.12', got {raw!r}")
    return raw.strip()


def _choice(choices: tuple[str, ...]) -> Callable[[Any], str]:
    def parse(raw: Any) -> str:
        if raw not in choices:
            raise ValueError(f"expected one of {', '.join(choices)}; got {raw!r}")
        return str(raw)

    return parse


def _parse_verdicts(raw: Any) -> frozenset[Verdict]:
    items: list[Any]
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, Iterable):
        raise ValueError(f"expected verdict names such as 'fabricated,contradicted', got {raw!r}")
    # Names separated by commas or spaces, in one string or several (the ini key is pytest's
    # "args" type: `citecheck_fail_on = fabricated, contradicted` reads as two words).
    items = []
    for item in raw:
        if isinstance(item, str):
            items += [part for part in item.replace(" ", ",").split(",") if part.strip()]
        else:
            items.append(item)
    known = {verdict.value: verdict for verdict in Verdict}
    chosen = set()
    for item in items:
        name = item.value if isinstance(item, Verdict) else item
        if name not in known:
            raise ValueError(f"unknown verdict {item!r}; verdicts are {', '.join(known)}")
        chosen.add(known[name])
    if not chosen:
        # An empty set would fail nothing: every fabricated quote would pass, silently.
        raise ValueError(
            f"expected at least one verdict ({', '.join(known)}), got {raw!r}; an empty fail_on would let every "
            "citation pass (to look at results without failing, use check_citations() or citecheck.check())"
        )
    return frozenset(chosen)


def _parse_questions(raw: Any) -> tuple[str, ...]:
    """Names of extra questions (``_judge.questions``), separated by commas or spaces, or a list; none for none."""
    from pytest_citecheck._judge.questions import EXTRA_QUESTIONS

    if raw is None or raw is False or (isinstance(raw, str) and raw.strip().lower() in _OFF):
        return ()
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, Iterable):
        raise ValueError(f"expected question names such as 'out_of_context,best_section', got {raw!r}")
    names: list[str] = []
    for item in raw:
        if not isinstance(item, str):
            raise ValueError(f"expected question names, got {item!r}")
        for name in item.replace(" ", ",").split(","):
            name = name.strip()
            if not name:
                continue
            if name not in EXTRA_QUESTIONS:
                raise ValueError(f"unknown question {name!r}; the questions are {', '.join(EXTRA_QUESTIONS)}")
            if name not in names:
                names.append(name)
    return tuple(names)


def _parse_path(raw: Any) -> str | None:
    if raw is None or raw == "":
        return None
    if not isinstance(raw, str):
        raise ValueError(f"expected a path, got {raw!r}")
    return raw


def _parse_positive_int(raw: Any) -> int:
    try:
        value = int(raw)
    except (TypeError, ValueError):
        raise ValueError(f"expected a whole number of at least 1, got {raw!r}") from None
    if isinstance(raw, bool) or value < 1 or (isinstance(raw, float) and raw != value):
        raise ValueError(f"expected a whole number of at least 1, got {raw!r}")
    return value


def _parse_bool(raw: Any) -> bool:
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in {"true", "yes", "1", "on"}:
        return True
    if text in {"false", "no", "0", "off"}:
        return False
    raise ValueError(f"expected true or false, got {raw!r}")


_OFF = (None, False, "", "none", "off", "None")


def _parse_optional_fraction(raw: Any) -> float | None:
    """0..1, or off (None, false, "none", "off")."""
    if isinstance(raw, str) and raw.strip().lower() in _OFF:
        return None
    if raw is None or raw is False:
        return None
    return _parse_fraction(raw)


def _parse_optional_positive_int(raw: Any) -> int | None:
    """A whole number of at least 1, or off (None, false, "none", "off")."""
    if isinstance(raw, str) and raw.strip().lower() in _OFF:
        return None
    if raw is None or raw is False:
        return None
    return _parse_positive_int(raw)


def _parse_dir(raw: Any) -> str:
    if not isinstance(raw, str) or not raw.strip():
        raise ValueError(f"expected a directory name, got {raw!r}")
    return raw.strip()


class Option(NamedTuple):
    """One setting: its name (the marker and call keyword), help text, default and parser.

    A ``NamedTuple`` for the reason ``Settings`` is one (below).
    """

    name: str
    help: str
    default: Any
    parse: Callable[[Any], Any]
    metavar: str = "VALUE"
    per_test: bool = False  # also a marker / call keyword

    @property
    def is_switch(self) -> bool:
        """A true/false setting: its flag takes no value (``--citecheck-strict-model``), its ini key does."""
        return self.parse is _parse_bool

    @property
    def ini_type(self) -> IniType:
        """The type pytest reads the ini key as (shown in ``pytest --help``); the parser still validates."""
        return _INI_TYPES.get(self.parse, "string")

    @property
    def flag(self) -> str:
        return "--citecheck-" + self.name.replace("_", "-")

    @property
    def ini(self) -> str:
        return "citecheck_" + self.name

    @property
    def default_text(self) -> str:
        if isinstance(self.default, frozenset):
            return ",".join(sorted(v.value for v in self.default))
        if isinstance(self.default, tuple):
            return ",".join(self.default) or "none"
        return "SDK default (jev-latest)" if self.name == "model" else str(self.default)


# pytest's ini types for the parsers whose values are one: a switch is "bool", a count "int", a
# fraction "float", a list of verdicts "args"; a value with an off word (``none``) stays a string.
IniType = Literal["string", "bool", "int", "float", "args"]
_INI_TYPES: dict[Callable[[Any], Any], IniType] = {
    _parse_bool: "bool",
    _parse_positive_int: "int",
    _parse_fraction: "float",
    _parse_verdicts: "args",
}

OPTIONS: tuple[Option, ...] = (
    Option(
        "auto_accept",
        "Confidence at or above which Jev's verdict stands on its own; below it a human should review.",
        0.8,
        _parse_fraction,
        metavar="0..1",
        per_test=True,
    ),
    Option(
        "model",
        "Jev model to ask, e.g. jev-1.12. Pin a version once thresholds are tuned.",
        None,
        _parse_model,
        "NAME",
        per_test=True,
    ),
    Option(
        "fail_on",
        "Verdicts that fail a test when they stand on their own (comma-separated; at least one).",
        frozenset({Verdict.FABRICATED, Verdict.CONTRADICTED, Verdict.UNSUPPORTED}),
        _parse_verdicts,
        "VERDICTS",
        per_test=True,
    ),
    Option(
        "review",
        "What a verdict below auto_accept does to its test: warn (pass with a warning), fail, xfail or skip.",
        "warn",
        _choice(REVIEW_POLICIES),
        "{" + ",".join(REVIEW_POLICIES) + "}",
        per_test=True,
    ),
    Option(
        "record_mode",
        "none replays only and never touches the network (CI); once, new_episodes and all are vcrpy's modes; "
        "rewrite deletes a test's cassette and records it again.",
        "none",
        _choice(RECORD_MODES),
        "{" + ",".join(RECORD_MODES) + "}",
    ),
    Option(
        "concurrency",
        "How many Jev requests one check may have in flight at once (results keep the citations' order).",
        8,
        _parse_positive_int,
        "N",
        per_test=True,
    ),
    Option(
        "screen",
        "Also ask Jev, in the same request (no extra call), whether the claim or section holds instructions "
        "addressed to an AI system; a flagged citation never passes on its own "
        f"(see {docs_url('security', 'the-screen-opt-in')}).",
        False,
        _parse_bool,
        "{true,false}",
        per_test=True,
    ),
    Option(
        "questions",
        "Extra yes/no questions asked in the same request as the relation (no extra call), comma-separated: "
        "out_of_context (citations with a quote: does the section qualify the quote in a way the claim leaves out?), "
        "best_section (claim-only citations: does the section deal with the claim, or touch it in passing?). "
        "A flag sends a 'verified' to review; a confident flag (Jev's probability of the flagging answer at or above "
        "auto_accept) fails as 'unsupported' would (see " + docs_url("usage", "extra-questions") + ").",
        (),
        _parse_questions,
        "NAMES|none",
        per_test=True,
    ),
    Option(
        "fuzzy",
        "Accept a quote whose best alignment in a section reaches this similarity (0..1) as found-approx; "
        "none (the default) means exact matching after normalisation only.",
        None,
        _parse_optional_fraction,
        "0..1|none",
        per_test=True,
    ),
    Option(
        "casefold",
        f"Match quotes without regard to letter case (see {docs_url('matching', 'the-normalisation-contract')}).",
        False,
        _parse_bool,
        "{true,false}",
        per_test=True,
    ),
    Option(
        "min_quote_length",
        "Shortest quote, in characters after normalisation, that may identify a passage; a shorter quote is an error.",
        12,
        _parse_positive_int,
        "N",
        per_test=True,
    ),
    Option(
        "window",
        "Judge N characters of the section around the quote instead of the whole section "
        "(for sections too large for one Jev request); none judges the whole section.",
        None,
        _parse_optional_positive_int,
        "N|none",
        per_test=True,
    ),
    Option(
        "misattributed",
        "What a found-elsewhere citation (its quote is real, but in another section or document than it names) "
        "does to its test: fail, warn (pass with a warning) or ignore. Jev judges where the quote is, either way.",
        "fail",
        _choice(MISATTRIBUTED_POLICIES),
        "{" + ",".join(MISATTRIBUTED_POLICIES) + "}",
        per_test=True,
    ),
    Option(
        "cassette_dir", "Cassette directory, relative to each test file's directory.", "cassettes", _parse_dir, "DIR"
    ),
    Option("json", "Write a JSON report of every checked citation to this path.", None, _parse_path, "PATH"),
    Option(
        "unused",
        "Recorded interactions a passing test did not play, and cassettes of no collected test: "
        "warn (in the summary), fail the run, or delete them.",
        "warn",
        _choice(UNUSED_POLICIES),
        "{" + ",".join(UNUSED_POLICIES) + "}",
    ),
    Option(
        "strict_model",
        "Fail (instead of warn) when the model that answered a recording is not the model the test asks for.",
        False,
        _parse_bool,
        "{true,false}",
    ),
    Option(
        "drift_tolerance",
        "With record mode rewrite: how far a confidence or probability may move from the previous recording "
        "before it is reported as a shift.",
        0.05,
        _parse_fraction,
        "0..1",
    ),
    Option(
        "fail_on_flip",
        "With record mode rewrite: fail the run when a re-recorded verdict differs from the previous recording.",
        False,
        _parse_bool,
        "{true,false}",
    ),
    Option(
        "html",
        "Write a self-contained HTML report (verdicts, confidence against the threshold, highlighted quotes) to this path.",
        None,
        _parse_path,
        "PATH",
    ),
    Option(
        "reviews",
        "Reviews file of human decisions (written by `citecheck review`), relative to each test file's directory, "
        "i.e. beside the cassette directory.",
        "citecheck-reviews.json",
        _parse_dir,
        "PATH",
    ),
)

OPTIONS_BY_NAME = {option.name: option for option in OPTIONS}
PER_TEST_OPTIONS = tuple(option.name for option in OPTIONS if option.per_test)


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
    screen: bool = False
    questions: tuple[str, ...] = ()
    fuzzy: float | None = None
    casefold: bool = False
    min_quote_length: int = 12
    window: int | None = None
    misattributed: str = "fail"
    cassette_dir: str = "cassettes"
    json: str | None = None
    unused: UnusedPolicy = "warn"
    strict_model: bool = False
    drift_tolerance: float = 0.05
    fail_on_flip: bool = False
    html: str | None = None
    reviews: str = "citecheck-reviews.json"

    @classmethod
    def resolve(cls, command_line: Mapping[str, Any], ini: Mapping[str, Any]) -> Settings:
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

    def override(self, overrides: Mapping[str, Any], origin: str) -> Settings:
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


def configuration_table() -> str:
    """The Markdown table of every option, for docs/configuration.md."""
    lines = [
        "| setting | flag | ini key | marker / call keyword | default | meaning |",
        "|---|---|---|---|---|---|",
    ]
    for option in OPTIONS:
        keyword = f"`{option.name}=`" if option.per_test else "–"
        meaning = option.help.replace("|", "\\|")
        lines.append(
            f"| {option.name} | `{option.flag}` | `{option.ini}` | {keyword} | `{option.default_text}` | {meaning} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    """``citecheck options``: print the configuration table."""
    import argparse

    argparse.ArgumentParser(
        prog="citecheck options",
        description="Print the Markdown table of every pytest-citecheck setting: its flag, ini key, marker and "
        "call keyword, default and meaning (the configuration page of the docs, "
        + docs_url("configuration")
        + ", is this table).",
    ).parse_args(argv)
    print(configuration_table(), end="")
    return 0

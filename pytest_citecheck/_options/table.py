"""The one table of every knob (``OPTIONS``): its name, help, default and parser.

Each ``Option`` becomes a ``--citecheck-*`` flag and a ``citecheck_*`` ini key; the per-test ones
are also ``@pytest.mark.citecheck(...)`` and call keyword arguments. ``docs/configuration.md`` is
generated from this table (``citecheck options``, in ``page``), so the two cannot drift.

Kept cheap to import: pytest imports it in every run (each byte of its bytecode costs a run about 170
instructions, through pytest's assertion rewriting: the page made of it is in ``page``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pytest_citecheck._dependencies import docs_url
from pytest_citecheck._verdicts import Verdict

if TYPE_CHECKING:
    from typing import Literal

    from pytest_citecheck._options.keywords import MisattributedPolicy, RecordMode, ReviewPolicy, UnusedPolicy

    # pytest's ini types (a type for checkers only: a ``Literal`` costs every run about 0.25 M instructions).
    IniType = Literal["string", "bool", "int", "float", "args"]

# The choices of the choice-valued knobs (for parsing and help). As types (for the public signatures)
# they are in ``keywords``, loaded when first named: a ``Literal`` costs every run about 0.25 M
# instructions. tests/project/test_typing.py keeps the two equal.
RECORD_MODES: tuple[RecordMode, ...] = ("none", "once", "new_episodes", "all", "rewrite")
UNUSED_POLICIES: tuple[UnusedPolicy, ...] = ("warn", "fail", "delete")
REVIEW_POLICIES: tuple[ReviewPolicy, ...] = ("warn", "fail", "xfail", "skip")
MISATTRIBUTED_POLICIES: tuple[MisattributedPolicy, ...] = ("fail", "warn", "ignore")


class Option:
    """One setting: its name (the marker and call keyword), help text, default and parser.

    The parser is named, not held: the name of a function in ``parsing``, or the tuple of choices
    the value must be one of. ``parsing`` loads when a value is first parsed: a run that sets no
    knob of ours (every one at its default) does not load it. A plain class with slots, not a
    ``NamedTuple``: pytest builds this module in every run, and a named tuple class compiles its
    constructor then (about 1 M instructions).
    """

    __slots__ = ("name", "help", "default", "parser", "metavar", "per_test")

    def __init__(
        self,
        name: str,
        help: str,
        default: Any,
        parser: str | tuple[str, ...],
        metavar: str = "VALUE",
        per_test: bool = False,  # also a marker / call keyword
    ) -> None:
        self.name = name
        self.help = help
        self.default = default
        self.parser = parser
        self.metavar = metavar
        self.per_test = per_test

    @property
    def parse(self) -> Callable[[Any], Any]:
        """The parser of this knob's values (from ``parsing``, imported when a value is first parsed)."""
        from pytest_citecheck._options import parsing

        if isinstance(self.parser, tuple):
            return parsing.choice_of(self.parser)
        parse: Callable[[Any], Any] = getattr(parsing, self.parser)
        return parse

    def __repr__(self) -> str:
        return f"Option({self.name!r})"

    @property
    def is_switch(self) -> bool:
        """A true/false setting: its flag takes no value (``--citecheck-strict-model``), its ini key does."""
        return self.parser == "parse_bool"

    @property
    def ini_type(self) -> IniType:
        """The type pytest reads the ini key as (shown in ``pytest --help``); the parser still validates."""
        return _INI_TYPES.get(self.parser, "string") if isinstance(self.parser, str) else "string"

    @property
    def takes_none(self) -> bool:
        """Whether the word ``none`` turns this setting off (its metavar says so: ``SECONDS|none``)."""
        return self.metavar.endswith("|none")

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
        if self.default is None and self.parser == "parse_optional_path":
            return "no report"  # not "None": the flag's error reads "leave it out for the default (no report)"
        return "SDK default (jev-latest)" if self.name == "model" else str(self.default)


# pytest's ini types for the parsers whose values are one: a switch is "bool", a count "int", a
# fraction "float", a list of verdicts "args"; a value with an off word (``none``) stays a string.
_INI_TYPES: dict[str, IniType] = {
    "parse_bool": "bool",
    "parse_positive_int": "int",
    "parse_count": "int",
    "parse_fraction": "float",
    "parse_verdicts": "args",
}

OPTIONS: tuple[Option, ...] = (
    Option(
        "auto_accept",
        "Confidence at or above which Jev's verdict stands on its own; below it a human should review.",
        0.8,
        "parse_fraction",
        metavar="0..1",
        per_test=True,
    ),
    Option(
        "model",
        "Jev model to ask, e.g. jev-1.12. Pin a version once thresholds are tuned. Unset, it is the SDK's default; "
        "none is refused, not sent as a model's name (-o citecheck_model= empties an ini key from the command line).",
        None,
        "parse_model",
        "NAME",
        per_test=True,
    ),
    Option(
        "fail_on",
        "Verdicts that fail a test when they stand on their own (comma-separated; at least one).",
        frozenset({Verdict.FABRICATED, Verdict.CONTRADICTED, Verdict.UNSUPPORTED}),
        "parse_verdicts",
        "VERDICTS",
        per_test=True,
    ),
    Option(
        "review",
        "What a verdict below auto_accept does to its test: warn (pass with a warning), fail, xfail or skip.",
        "warn",
        REVIEW_POLICIES,
        "{" + ",".join(REVIEW_POLICIES) + "}",
        per_test=True,
    ),
    Option(
        "record_mode",
        "none replays only and never touches the network (CI); once, new_episodes and all are vcrpy's modes; "
        "rewrite deletes a test's cassette and records it again.",
        "none",
        RECORD_MODES,
        "{" + ",".join(RECORD_MODES) + "}",
    ),
    Option(
        "concurrency",
        "How many Jev requests may be in flight at once, across every process of the run (xdist workers included); "
        "results keep the citations' order.",
        8,
        "parse_positive_int",
        "N",
        per_test=True,
    ),
    Option(
        "request_deadline",
        "Longest one Jev request may take, from sending it to the last byte of its answer, the SDK's retries "
        "included, in seconds, at most a day (none: no limit); past it the citation fails. The SDK's timeout is per read, so a "
        "server that trickles its answer would hold the test for as long as it likes. The default outlasts the "
        "wait allowed for a rate limit (180 s). Not applied when replaying (record mode none).",
        240.0,
        "parse_seconds",
        "SECONDS|none",
        per_test=True,
    ),
    Option(
        "max_rpm",
        "Most Jev requests a minute, shared by every process of the run (xdist workers, and other pytest runs of "
        "this user on this machine asking the same server), with a burst of at most concurrency requests; none: "
        "no limit. Replayed answers are not counted (see " + docs_url("reliability", "within-jevs-limits") + ").",
        1200,
        "parse_optional_positive_int",
        "N|none",
        per_test=True,
    ),
    Option(
        "max_tokens_per_second",
        "Most tokens a second sent to Jev, shared like max_rpm; a request's tokens are estimated from its body "
        "(one per 3 bytes, which over-counts); none: no limit.",
        250_000,
        "parse_optional_positive_int",
        "N|none",
        per_test=True,
    ),
    Option(
        "screen",
        "Also ask Jev, in the same request (no extra call), whether the claim or section holds instructions "
        "addressed to an AI system; a flagged citation never passes on its own "
        f"(see {docs_url('security', 'the-screen-opt-in')}).",
        False,
        "parse_bool",
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
        "parse_questions",
        "NAMES|none",
        per_test=True,
    ),
    Option(
        "fuzzy",
        "Accept a quote whose best alignment in a section reaches this similarity (0.7..1) as found-approx; "
        "none (the default) means exact matching after normalisation only (0 is refused: below 0.7 unrelated "
        "sentences pass for a quote).",
        None,
        "parse_fuzzy",
        "0.7..1|none",
        per_test=True,
    ),
    Option(
        "casefold",
        f"Match quotes without regard to letter case (see {docs_url('matching', 'the-normalisation-contract')}).",
        False,
        "parse_bool",
        "{true,false}",
        per_test=True,
    ),
    Option(
        "min_quote_length",
        "Shortest quote, in characters after normalisation (a wide Chinese, Japanese or Korean character counts as two), that may identify a passage; a shorter quote is an error.",
        12,
        "parse_positive_int",
        "N",
        per_test=True,
    ),
    Option(
        "window",
        "Judge N characters of the section around the quote instead of the whole section "
        "(for sections too large for one Jev request); none judges the whole section.",
        None,
        "parse_optional_positive_int",
        "N|none",
        per_test=True,
    ),
    Option(
        "misattributed",
        "What a found-elsewhere citation (its quote is real, but in another section or document than it names) "
        "does to its test: fail, warn (pass with a warning) or ignore. Jev judges where the quote is, either way.",
        "fail",
        MISATTRIBUTED_POLICIES,
        "{" + ",".join(MISATTRIBUTED_POLICIES) + "}",
        per_test=True,
    ),
    Option(
        "min_citations",
        "Fewest citations an asserted answer must have: fewer fails the test ('the answer cites nothing'), so an "
        "answer without citations never passes with nothing checked. 0 lets it pass.",
        1,
        "parse_count",
        "N",
        per_test=True,
    ),
    Option(
        "require_cited_sentences",
        "Also fail an asserted answer whose own text (an Anthropic Message, an OpenAI Response) has sentences that "
        "cite nothing, and list them.",
        False,
        "parse_bool",
        "{true,false}",
        per_test=True,
    ),
    Option(
        "cassette_dir", "Cassette directory, relative to each test file's directory.", "cassettes", "parse_dir", "DIR"
    ),
    Option(
        "json",
        "Write a JSON report of every checked citation to this path; none: no report (a file called none is ./none).",
        None,
        "parse_optional_path",
        "PATH|none",
    ),
    Option(
        "unused",
        "Recorded interactions a passing test did not play, and cassettes of no collected test: "
        "warn (in the summary), fail the run, or delete them.",
        "warn",
        UNUSED_POLICIES,
        "{" + ",".join(UNUSED_POLICIES) + "}",
    ),
    Option(
        "strict_model",
        "Fail (instead of warn) when the model that answered a recording is not the model the test asks for.",
        False,
        "parse_bool",
        "{true,false}",
    ),
    Option(
        "rehearsal",
        "Accept answers from the rehearsal server (pytest_citecheck.testing.JevServer, citecheck serve), which "
        "carry its mark: for a rehearsal only. Without it a marked answer, live or replayed, fails its citation, so a "
        "cassette recorded against the rehearsal server never passes for Jev's verdict; a script's checker opts in "
        "with Checker(rehearsal=True) (see " + docs_url("cassettes", "rehearse-recording-without-a-key") + ").",
        False,
        "parse_bool",
        "{true,false}",
    ),
    Option(
        "drift_tolerance",
        "With record mode rewrite: how far a confidence or probability may move from the previous recording "
        "before it is reported as a shift.",
        0.05,
        "parse_fraction",
        "0..1",
    ),
    Option(
        "fail_on_flip",
        "With record mode rewrite: fail the run when a re-recorded verdict differs from the previous recording.",
        False,
        "parse_bool",
        "{true,false}",
    ),
    Option(
        "html",
        "Write a self-contained HTML report (verdicts, confidence against the threshold, highlighted quotes) to this "
        "path; none: no report (a file called none is ./none).",
        None,
        "parse_optional_path",
        "PATH|none",
    ),
    Option(
        "reviews",
        "Reviews file of human decisions (written by `citecheck review`), relative to each test file's directory, "
        "i.e. beside the cassette directory.",
        "citecheck-reviews.json",
        "parse_dir",
        "PATH",
    ),
    Option(
        "estimate",
        "Dry run: run the tests as usual, but count every Jev request a record run would send (a cassette miss under "
        "the record mode, every request under rewrite or all) instead of sending it, and print the requests, tokens and "
        "dollars per test module and in total. Replayed answers are counted apart and cost nothing. A check that would "
        "send is skipped with no verdict, nothing is recorded, and the run exits 1 (see " + docs_url("estimate") + ").",
        False,
        "parse_bool",
        "{true,false}",
    ),
    Option(
        "estimate_input_price",
        "With estimate: US dollars per million input tokens (the default is TypeSafe's published Jev price).",
        0.042,
        "parse_price",
        "USD",
    ),
    Option(
        "estimate_output_price",
        "With estimate: US dollars per million output tokens (Jev's output tokens are free).",
        0.0,
        "parse_price",
        "USD",
    ),
)

OPTIONS_BY_NAME = {option.name: option for option in OPTIONS}
PER_TEST_OPTIONS = tuple(option.name for option in OPTIONS if option.per_test)

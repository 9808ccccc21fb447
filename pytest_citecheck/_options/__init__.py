"""Every knob of pytest-citecheck, declared once, and ``Settings``, which resolves them.

``table``: the one table (``OPTIONS``), one ``Option`` per knob, and the choices; ``parsing``: the
parsers of their values, loaded when a value is first parsed; here: ``Settings``, the resolved value of every knob (call > marker >
command line > ini > default). Loaded when first named (pytest loads this package in every run, and
each module of it costs every run): ``keywords``, the per-test keywords a call takes
(``CheckOptions``) and the choices as types (``RecordMode``...); ``page``, the configuration page
made of the table (``citecheck options``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from pytest_citecheck._options.table import MISATTRIBUTED_POLICIES as MISATTRIBUTED_POLICIES
from pytest_citecheck._options.table import OPTIONS as OPTIONS
from pytest_citecheck._options.table import OPTIONS_BY_NAME as OPTIONS_BY_NAME
from pytest_citecheck._options.table import PER_TEST_OPTIONS as PER_TEST_OPTIONS
from pytest_citecheck._options.table import RECORD_MODES as RECORD_MODES
from pytest_citecheck._options.table import REVIEW_POLICIES as REVIEW_POLICIES
from pytest_citecheck._options.table import UNUSED_POLICIES as UNUSED_POLICIES
from pytest_citecheck._options.table import Option as Option
from pytest_citecheck._verdicts import Verdict

if TYPE_CHECKING:
    from typing import NamedTuple as _Record

    from pytest_citecheck._options.keywords import CheckOptions as CheckOptions
    from pytest_citecheck._options.keywords import MisattributedPolicy as MisattributedPolicy
    from pytest_citecheck._options.keywords import RecordMode as RecordMode
    from pytest_citecheck._options.keywords import ReviewPolicy as ReviewPolicy
    from pytest_citecheck._options.keywords import UnusedPolicy as UnusedPolicy
    from pytest_citecheck._options.page import configuration_table as configuration_table
    from pytest_citecheck._options.page import main as main
    from pytest_citecheck._options.parsing import QUESTION_NAMES as QUESTION_NAMES

# Names loaded when first asked for -> the module of this package that defines them.
_LAZY = {
    **dict.fromkeys(("CheckOptions", "MisattributedPolicy", "RecordMode", "ReviewPolicy", "UnusedPolicy"), "keywords"),
    **dict.fromkeys(("configuration_table", "main"), "page"),
    "QUESTION_NAMES": "parsing",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


class _RecordType(type):
    """Builds a named tuple class from its body's annotated fields and defaults, as ``typing.NamedTuple``
    does, but without compiling anything or evaluating the annotations (they stay strings).

    Every pytest run builds ``Settings``: as a ``typing.NamedTuple`` of 29 fields that cost about 3.5 M
    instructions (a ``ForwardRef`` or a type check per field, and a constructor compiled from source).
    Type checkers see ``typing.NamedTuple`` (the ``TYPE_CHECKING`` import above).
    """

    def __new__(cls, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> _RecordType:
        fields = tuple(namespace.get("__annotations__", {}))
        defaults = {field: namespace.pop(field) for field in fields}  # every field has a default
        namespace["__slots__"] = ()
        for index, field in enumerate(fields):
            namespace[field] = property(itemgetter(index), doc=f"Alias for field number {index}")
        record = super().__new__(cls, name, bases, namespace)
        if fields:
            record._fields, record._field_defaults = fields, defaults  # type: ignore[attr-defined]
        return record


class _RecordBase(tuple):  # type: ignore[type-arg]
    """What a ``_RecordType`` class has of ``collections.namedtuple``: its constructor and methods."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()
    _field_defaults: dict[str, Any] = {}

    def __new__(cls, *values: Any, **named: Any) -> Any:
        fields, defaults = cls._fields, cls._field_defaults
        if len(values) > len(fields):
            raise TypeError(f"{cls.__name__}() takes {len(fields)} values, {len(values)} were given")
        given = dict(zip(fields, values))
        twice = given.keys() & named.keys()
        unknown = named.keys() - defaults.keys()
        if twice or unknown:
            problem = "multiple values for argument" if twice else "an unexpected keyword argument"
            raise TypeError(f"{cls.__name__}() got {problem} {sorted(twice or unknown)[0]!r}")
        given.update(named)
        return tuple.__new__(cls, [given[field] if field in given else defaults[field] for field in fields])

    @classmethod
    def _make(cls, iterable: Any) -> Any:
        return tuple.__new__(cls, iterable)

    def _replace(self, **changes: Any) -> Any:
        record = self._make(map(changes.pop, self._fields, self))
        if changes:
            raise ValueError(f"Got unexpected field names: {list(changes)!r}")
        return record

    def _asdict(self) -> dict[str, Any]:
        return dict(zip(self._fields, self))

    def __getnewargs__(self) -> tuple[Any, ...]:
        return tuple(self)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{name}={value!r}' for name, value in zip(self._fields, self))})"


if not TYPE_CHECKING:
    _Record = _RecordType("_Record", (_RecordBase,), {"__doc__": _RecordBase.__doc__})


class Settings(_Record):
    """The resolved value of every option, for a session or for one check.

    A named tuple, immutable; ``_replace`` is ``dataclasses.replace``. Built by ``_RecordType``, not
    ``typing.NamedTuple`` nor a frozen dataclass (which compiles five generated methods): every pytest
    run builds this class (the plugin resolves the session's settings before collection).
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
    rehearsal: bool = False
    drift_tolerance: float = 0.05
    fail_on_flip: bool = False
    html: str | None = None
    reviews: str = "citecheck-reviews.json"
    estimate: bool = False
    estimate_input_price: float = 0.042
    estimate_output_price: float = 0.0

    @classmethod
    def resolve(cls, command_line: Mapping[str, Any], ini: Mapping[str, Any]) -> Settings:
        """Session settings: command line over ini over default. Raises OptionError naming the source."""
        values: dict[str, Any] = {}
        for option in OPTIONS:
            if command_line.get(option.name) is not None:
                origin, raw = option.flag, command_line[option.name]
                if _blank(raw):
                    raise _option_error(origin, _empty_flag(option))
            elif ini.get(option.name) not in (None, [], ()) and not _blank(ini[option.name]):
                origin, raw = f"ini {option.ini}", ini[option.name]
            else:
                values[option.name] = option.default
                continue
            try:
                values[option.name] = option.parse(raw)
            except ValueError as error:
                raise _option_error(origin, str(error)) from None
        return cls(**values)

    def override(self, overrides: Mapping[str, Any], origin: str | Callable[[str], str]) -> Settings:
        """These settings with per-test keywords (from a marker or a call) applied on top.

        ``origin`` names where they come from in an error: the words, or a function of the keyword
        that finds them (which marker gave it: asked only when a keyword is refused)."""
        if not overrides:
            return self
        changes: dict[str, Any] = {}
        for name, raw in overrides.items():
            if raw is None and name != "model" and name in PER_TEST_OPTIONS:
                continue
            try:
                changes[name] = _per_test_value(name, raw)
            except ValueError as error:
                raise _option_error(origin(name) if callable(origin) else origin, str(error)) from None
        return self._replace(**changes)

    def for_script(self, name: str, raw: Any, origin: str) -> Settings:
        """These settings with run-level knob ``name`` set by a script's ``Checker(name=...)`` (``rehearsal``),
        parsed as the flag and the ini key are (``origin`` names the keyword in an error)."""
        try:
            return self._replace(**{name: OPTIONS_BY_NAME[name].parse(raw)})
        except ValueError as error:
            raise _option_error(origin, f"{name}: {error}") from None


# The key a marker's positional arguments are given under (``_pytest_glue.markers``): it takes none.
POSITIONAL = "<positional>"


def _per_test_value(name: str, raw: Any) -> Any:
    """The value of per-test keyword ``name``; ValueError with the words for one that is refused."""
    if name == POSITIONAL:
        raise ValueError(
            f"positional arguments {tuple(raw)!r}: it takes keywords only, e.g. citecheck(review='fail'); "
            f"accepted: {', '.join(PER_TEST_OPTIONS)}"
        )
    if name not in PER_TEST_OPTIONS:
        raise ValueError(_unknown_argument(name))
    if _blank(raw):
        raise ValueError(f"{name}: {_empty_keyword(OPTIONS_BY_NAME[name])}")
    try:
        return OPTIONS_BY_NAME[name].parse(raw)
    except ValueError as error:
        raise ValueError(f"{name}: {error}") from None


def _blank(raw: Any) -> bool:
    """An empty or whitespace-only text: what a shell variable that expanded to nothing gives a flag."""
    return isinstance(raw, str) and not raw.strip()


# An empty value is refused on the command line and as a keyword, where it once meant "off" to some
# parsers (no deadline, no rate limit, no report) and "the default" to the ini file; an empty ini key is
# the default (pytest gives an unset key and ``key =`` alike). "none" is how to ask for "off".
def _empty_flag(option: Option) -> str:
    off = ", or none turns it off" if option.takes_none else ""
    return (
        f"an empty value (a shell variable that expanded to nothing?); leave {option.flag} out for the "
        f"default ({option.default_text}){off}"
    )


def _empty_keyword(option: Option) -> str:
    off = ", or none turns it off" if option.takes_none else ""
    return (
        "an empty value; leave it out (or pass None) for the setting of the marker, the command line or the ini file"
        + off
    )


def _unknown_argument(name: object) -> str:
    """The words for a keyword that is no per-test setting, with the one it looks like (a misspelling)."""
    import difflib  # on the error's path only

    close = difflib.get_close_matches(name, PER_TEST_OPTIONS, n=1) if isinstance(name, str) else []
    hint = f"did you mean {close[0]!r}? " if close else ""
    return f"unknown argument {name!r}; {hint}accepted: {', '.join(PER_TEST_OPTIONS)}"


def _option_error(origin: str, message: str) -> Exception:
    # Imported when a value is refused: a run with valid settings does not load the exception classes.
    from pytest_citecheck._errors import OptionError

    return OptionError(origin, message)


assert set(Settings._fields) == set(OPTIONS_BY_NAME), "Settings and OPTIONS must list the same knobs"

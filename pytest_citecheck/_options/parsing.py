"""The parsers of the options' values.

Loaded when a value is first parsed (``table.Option.parse``): a run that sets no knob of ours does
not load this module.

Each parser takes what a flag, an ini key, a marker or a call gave and returns the value, or raises
``ValueError`` with words the caller prefixes with where the value came from (``OptionError``).
"""

from __future__ import annotations

import ast
import math
import re
import string
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from pytest_citecheck._verdicts import Verdict

if TYPE_CHECKING:
    from pytest_citecheck._errors import OptionError
    from pytest_citecheck._options.table import Option

# The extra questions of option ``questions`` (``_judge.questions`` asks them, and checks this list).
QUESTION_NAMES = ("out_of_context", "best_section")


# What a numeric knob's text may be: ASCII digits, with a sign, and a decimal point where a fraction is
# allowed. Python's int() and float() also read other scripts' digits (١٢٠٠, full-width １２００) and
# underscores (1_000), so a value nobody can check by eye was taken; an exponent (1e3) is refused too.
_WHOLE = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")


def _number(raw: Any, expected: str, *, whole: bool, given: Any = None) -> float:
    """The one reader of every numeric knob's value: a number given as one (a keyword, a TOML number, an
    ini value pytest read as its type), or a text of ASCII digits (``_WHOLE``, ``_DECIMAL``); a whole
    number when ``whole``. ``ValueError`` with ``expected``, the value as given (``given``, else ``raw``),
    and for a text that Python would have read, its characters' code points and what to write instead."""
    problem = f"{expected}, got {_shown(raw if given is None else given)}"
    if isinstance(raw, bool):
        raise ValueError(problem)
    if isinstance(raw, str):
        text = raw.strip(string.whitespace)
        if not (_WHOLE if whole else _DECIMAL).fullmatch(text):
            raise ValueError(problem + _not_ascii_digits(text, whole))
        try:
            number = int(text) if whole else float(text)
        except ValueError:  # int() of more than 4,300 digits
            raise ValueError(problem) from None
        if not math.isfinite(number):  # float() of 400 digits is inf
            raise ValueError(problem)
        return number
    try:
        value = float(raw)
    except (TypeError, ValueError, OverflowError):  # float(10**400) overflows
        raise ValueError(problem) from None
    if not math.isfinite(value) or (whole and not value.is_integer()):
        raise ValueError(problem)
    if not whole:
        return value
    return raw if isinstance(raw, int) else int(value)  # an int as given: a float loses digits past 2**53


def _shown(raw: Any) -> str:
    """``raw`` as a message shows it: its repr, cut at 40 characters."""
    shown = repr(raw)
    return shown if len(shown) <= 40 else shown[:39] + "…"


def _not_ascii_digits(text: str, whole: bool) -> str:
    """Why a numeric text Python would read is refused, and the ASCII to write instead; "" for other text."""
    if text.isascii() and "_" not in text:
        return ""
    import unicodedata

    # The code points, for digits that look like others or like nothing a reader knows (repr shows an
    # invisible character's already).
    points = "" if ascii(text) == repr(text) else f" ({ascii(text)})"
    ascii_text = "".join(str(unicodedata.decimal(ch)) if ch.isdecimal() else ch for ch in text).replace("_", "")
    read = "ASCII digits 0-9" + ("" if whole else " and a decimal point")
    if not (_WHOLE if whole else _DECIMAL).fullmatch(ascii_text):
        return f"{points}: only {read} are read"
    return f"{points}: only {read} are read, not other scripts' digits nor underscores; write {ascii_text}"


def parse_fraction(raw: Any) -> float:
    value = _number(raw, "expected a number from 0 to 1", whole=False)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"expected a number from 0 to 1, got {_shown(raw)}")
    return value


def parse_model(raw: Any) -> str | None:
    if raw is None:
        return None
    if not isinstance(raw, str) or not raw.strip() or any(ch.isspace() for ch in raw.strip()):
        raise ValueError(f"expected a model name such as 'jev-1.12', got {raw!r}")
    if raw.strip().lower() in _OFF:
        # "Off" for the other knobs, but a model cannot be off: it was sent to Jev as a model named none.
        raise ValueError(
            f"{raw.strip()!r} is not a model name; leave the model unset for the SDK's default "
            "(TYPESAFE_DEFAULT_MODEL, else jev-latest): no flag or ini key (-o citecheck_model= empties the ini's), "
            "model=None as a keyword; "
            "or name a model such as 'jev-1.12'"
        )
    return raw.strip()


# The SDK's own variable, read by every client it builds when no model is passed (``citecheck_model`` unset).
DEFAULT_MODEL_ENV = "TYPESAFE_DEFAULT_MODEL"


def check_default_model(environ: Mapping[str, str]) -> None:
    """Refuse the words for "off" in the SDK's ``TYPESAFE_DEFAULT_MODEL``: none means "no value" on every
    knob of ours, but the SDK would send it to Jev as a model's name. (Not read as unset: the SDK itself
    would not, and a user's own client would still send it.)"""
    value = environ.get(DEFAULT_MODEL_ENV)
    if value is None or value.strip().lower() not in _OFF:
        return
    from pytest_citecheck._errors import OptionError

    raise OptionError(
        DEFAULT_MODEL_ENV,
        f"{value.strip()!r} is not a model name, and the SDK would send it to Jev as one; unset "
        f"{DEFAULT_MODEL_ENV} for the SDK's default (jev-latest), or set it (or citecheck_model) to a model "
        "such as 'jev-1.12'",
    )


def choice_of(choices: tuple[str, ...]) -> Callable[[Any], str]:
    def parse(raw: Any) -> str:
        if raw not in choices:
            raise ValueError(f"expected one of {', '.join(choices)}; got {raw!r}")
        return str(raw)

    return parse


def _names_of(raw: Any, kind: str, example: str) -> list[str]:
    """The names in ``raw``: one text, or a collection of texts (list, tuple, set, generator); each may
    hold several, separated by commas or spaces (the ini key of ``fail_on`` is pytest's "args" type:
    ``citecheck_fail_on = fabricated, contradicted`` reads as two words).

    Refused, naming what was given: a mapping (it iterates its keys, so ``{"fabricated": False}``
    chose fabricated), bytes (they iterate as numbers: "unknown verdict 102"), and anything else that
    is not text, in the collection or as it."""
    expected = f"expected a {kind} name or a collection of {kind} names (e.g. {example})"
    if isinstance(raw, str):
        raw = [raw]
    elif isinstance(raw, Mapping | bytes | bytearray | memoryview) or not isinstance(raw, Iterable):
        raise ValueError(f"{expected}, got {_described(raw)}")
    items = list(raw)
    for item in items:
        if not isinstance(item, str):  # a list in the list (a TOML array in the array) too
            raise ValueError(f"{expected}, got {_described(item)} in {items!r}")
    return [part for item in items for part in item.replace(" ", ",").split(",") if part.strip()]


def _described(value: Any) -> str:
    """A value that is not a name, as a message shows it: its type, then itself."""
    kind = type(value).__name__
    if isinstance(value, Mapping):
        return f"a {kind} {value!r} (a mapping is not read as its keys: list the names)"
    if isinstance(value, bytes | bytearray | memoryview):
        return f"{kind} {bytes(value)!r} (text is expected: decode them)"
    return f"{value!r} ({'an' if kind[:1].lower() in 'aeiou' else 'a'} {kind})"


def parse_verdicts(raw: Any) -> frozenset[Verdict]:
    # ``errored`` is no verdict to choose: a check that raised fails its test whatever fail_on says.
    known = {verdict.value: verdict for verdict in Verdict if verdict is not Verdict.ERRORED}
    chosen = set()
    for name in _names_of(raw, "verdict", "'fabricated' or ['fabricated', 'contradicted']"):
        if name not in known:
            raise ValueError(f"unknown verdict {name!r}; verdicts are {', '.join(known)}")
        chosen.add(known[name])
    if not chosen:
        # An empty set would fail nothing: every fabricated quote would pass, silently.
        raise ValueError(
            f"expected at least one verdict ({', '.join(known)}), got {raw!r}; an empty fail_on would let every "
            "citation pass (to look at results without failing, use check_citations() or citecheck.check())"
        )
    return frozenset(chosen)


def parse_questions(raw: Any) -> tuple[str, ...]:
    """Names of extra questions (``_judge.questions``), separated by commas or spaces, or a list; none for none."""
    if raw is None or raw is False or (isinstance(raw, str) and raw.strip().lower() in _OFF):
        return ()
    names: list[str] = []
    for name in _names_of(raw, "question", "'out_of_context' or ['out_of_context', 'best_section']"):
        if name not in QUESTION_NAMES:
            raise ValueError(f"unknown question {name!r}; the questions are {', '.join(QUESTION_NAMES)}")
        if name not in names:
            names.append(name)
    return tuple(names)


def parse_optional_path(raw: Any) -> str | None:
    """A report's path, or off (None, "none", "off"), as the other knobs read the off words.

    ``--citecheck-json=none`` once wrote a report named ``none``, so an ini-configured report could
    not be switched off from the command line; a file called none is ``./none``."""
    if raw is None or (isinstance(raw, str) and raw.strip().lower() in _OFF):
        return None
    if not isinstance(raw, str) or not raw.strip():  # a blank name wrote a report to a file named a space
        raise ValueError(f"expected a path, got {raw!r}")
    return _names_fit(raw)


# The longest name of one file or directory that file systems allow (NAME_MAX on Linux and macOS, NTFS's 255).
NAME_MAX = 255


def _names_fit(path: str) -> str:
    """``path``, if each name in it fits a file system: a longer one made ``os.stat`` raise (an INTERNALERROR)."""
    for name in path.replace("\\", "/").split("/"):
        size = len(name.encode("utf-8", "surrogatepass"))
        if size > NAME_MAX:
            raise ValueError(
                f"a name in the path is {size} bytes long ({name[:20]!r}...); file systems allow {NAME_MAX} at most"
            )
    return path


def parse_count(raw: Any) -> int:
    """A whole number of 0 or more."""
    return _whole_at_least(raw, 0, "expected a whole number of 0 or more")


def parse_positive_int(raw: Any) -> int:
    """A whole number of at least 1."""
    return _whole_at_least(raw, 1, "expected a whole number of at least 1")


def _whole_at_least(raw: Any, least: int, expected: str) -> int:
    value = int(_number(raw, expected, whole=True))
    if value < least:
        raise ValueError(f"{expected}, got {_shown(raw)}")
    return value


def parse_bool(raw: Any) -> bool:
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in {"true", "yes", "1", "on"}:
        return True
    if text in {"false", "no", "0", "off"}:
        return False
    raise ValueError(f"expected true or false, got {raw!r}")


# The words for "off". Not the empty text: a blank flag or keyword is refused before it is parsed (an
# empty flag once meant "off" where an empty ini key means the default), and a parser refuses it too.
_OFF = ("none", "off")


def parse_optional_fraction(raw: Any) -> float | None:
    """0..1, or off (None, false, "none", "off")."""
    if isinstance(raw, str) and raw.strip().lower() in _OFF:
        return None
    if raw is None or raw is False:
        return None
    return parse_fraction(raw)


# The lowest ``fuzzy`` tolerance. Below it unrelated text passes for a quote: sentences of Debian's GPL
# and Apache licence texts score 0.38 to 0.63 against RFC 7519's sections, so a fabricated quote would
# be found-approx and judged instead of failing as fabricated. And ``fuzzy = 0`` is not "off" (none is).
MIN_FUZZY = 0.7


def parse_fuzzy(raw: Any) -> float | None:
    """``fuzzy``: a similarity from ``MIN_FUZZY`` to 1, or off (None, false, "none", "off")."""
    value = parse_optional_fraction(raw)
    if value is not None and value < MIN_FUZZY:
        raise ValueError(
            f"expected a similarity from {MIN_FUZZY} to 1, or none, got {raw!r}: below {MIN_FUZZY} unrelated "
            "sentences pass for the quote, so a fabricated quote would be judged instead of failing; "
            "none (not 0) turns fuzzy matching off"
        )
    return value


def parse_optional_positive_int(raw: Any) -> int | None:
    """A whole number of at least 1, or off (None, false, "none", "off")."""
    if isinstance(raw, str) and raw.strip().lower() in _OFF:
        return None
    if raw is None or raw is False:
        return None
    return parse_positive_int(raw)


# The longest ``parse_seconds`` takes: a day. Longer is "none" in all but name, and a wait that long
# overflows the system's timers (1e20 s raised OverflowError in threading once a request was sent).
MAX_SECONDS = 86_400.0


def parse_seconds(raw: Any) -> float | None:
    """A number of seconds above 0 and at most a day, or off (None, false, "none", "off")."""
    if raw is None or raw is False or (isinstance(raw, str) and raw.strip().lower() in _OFF):
        return None
    expected = f"expected a number of seconds above 0 and at most {MAX_SECONDS:g} (a day), or none"
    value = _number(raw, expected, whole=False)
    if not 0 < value <= MAX_SECONDS:
        raise ValueError(f"{expected}, got {_shown(raw)}")
    return value


def parse_dir(raw: Any) -> str:
    if not isinstance(raw, str) or not raw.strip():
        raise ValueError(f"expected a directory name, got {raw!r}")
    return _names_fit(raw.strip())


# The highest price ``parse_price`` takes: far above any model's, so a slip (a price per token
# instead of per million, a missing decimal point) is an error, not an estimate in the billions.
MAX_PRICE_PER_MILLION = 10_000.0


def parse_price(raw: Any) -> float:
    """US dollars per million tokens: a finite number from 0 to ``MAX_PRICE_PER_MILLION`` (a leading ``$`` is allowed)."""
    expected = f"expected US dollars per million tokens, a number from 0 to {MAX_PRICE_PER_MILLION:,.0f} (e.g. 0.042)"
    text = raw.strip().removeprefix("$") if isinstance(raw, str) else raw
    value = _number(text, expected, whole=False, given=raw)
    if not 0.0 <= value <= MAX_PRICE_PER_MILLION:
        raise ValueError(f"{expected}, got {_shown(raw)}")
    return value


# pytest's words for an ini type, in the message for a value it could not read as one.
_INI_TYPE_WORDS = {"bool": "true or false", "int": "a whole number", "float": "a number"}
# pytest's conversion errors end with the value it could not convert: "... float: 'nope'". A pattern, compiled
# (and cached by ``re``) when a bad ini value needs it, not in every run (about 1 M instructions).
_TRAILING_REPR = r"""('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")\s*$"""


def ini_type_error(option: Option, error: Exception) -> OptionError:
    """pytest could not read an ini value as the key's type: our parser's words for it, naming the key."""
    from pytest_citecheck._errors import OptionError

    origin = f"ini {option.ini}"
    found = re.search(_TRAILING_REPR, str(error))
    if found is not None:
        try:
            option.parse(ast.literal_eval(found[1]))
        except ValueError as parse_error:
            return OptionError(origin, str(parse_error))
        except SyntaxError:
            pass
    native = re.search(_NATIVE_NOT_TEXT, str(error)) if option.ini_type == "string" else None
    if native is not None:
        # A TOML number, boolean or list for a key read as text (it also takes words: none, a choice):
        # the value is fine, its TOML type is not, so say how to write it.
        written = _as_toml_text(native[1], native[2])
        if written is not None:
            return OptionError(
                origin, f'expected text: write it as a TOML string, {option.ini} = "{written}" ({error})'
            )
    return OptionError(origin, f"expected {_INI_TYPE_WORDS.get(option.ini_type, 'a value')} ({error})")


# pytest 9's error for a native TOML value of another type than a string key's: "... expects a string, got int: 600".
_NATIVE_NOT_TEXT = r"expects a string, got (int|float|bool|list): (.+?)\s*$"


def _as_toml_text(kind: str, shown: str) -> str | None:
    """The text a TOML value (shown as pytest shows it: its Python repr) stands for in a string key's value;
    None when it cannot be read back."""
    try:
        value = ast.literal_eval(shown)
    except (ValueError, SyntaxError):
        return None
    if kind == "list":
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            return None
        return ", ".join(value)  # the keys that take several names take them comma-separated
    if kind == "bool":
        return "true" if value else "false"
    return str(value)

"""Keys in pytest's configuration that look like pytest-citecheck's and are not: ``citecheck_reveiw = fail``.

pytest only warns about a key it does not know, among the run's other warnings at its end, and the
setting meant keeps its default: a misspelt ``citecheck_review = fail`` let verdicts below auto_accept
pass with a warning. This module finds such keys in pytest's section of the file pytest read
(``[pytest]``, ``[tool:pytest]``, ``[tool.pytest.ini_options]`` or ``[tool.pytest]``) and in ``-o``
overrides, so the plugin can refuse them before any test runs. And it finds the text a key is written
as (``written_values``) where pytest converts it to a number first: pytest reads an int- or
float-typed key with Python's int() and float(), which take other scripts' digits and underscores
(``citecheck_concurrency = ١٢``), so our parser reads what was written instead. Plain text,
pytest-free; loaded only when the file or an override names ``citecheck`` (a run that sets no knob of
ours does not load it).
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Iterable, Iterator

from pytest_citecheck._errors import OptionError, docs_url

PREFIX = "citecheck"
# The sections pytest reads its settings from: ini files, setup.cfg, pyproject.toml (pytest 8 and 9).
_SECTIONS = frozenset({"pytest", "tool:pytest", "tool.pytest.ini_options", "tool.pytest"})


def _section_name(line: str) -> str:
    """``[tool.pytest.ini_options]  # comment`` -> ``tool.pytest.ini_options`` (TOML quotes and spaces dropped)."""
    return line.lstrip("[").split("]", 1)[0].replace('"', "").replace("'", "").replace(" ", "")


def _key_value(line: str, toml: bool) -> tuple[str, str] | None:
    """The key a ``key = value`` (or ini ``key: value``) line sets, unquoted, and the rest of the line
    (its value, for an ini file's one-line value); None for any other line.

    TOML sets a key with ``=`` only: ``"citecheck: ..."`` in a multi-line array is an item, not a key."""
    signs = ("=",) if toml else ("=", ":")
    if line[:1] in ("#", ";", "") or not any(sign in line for sign in signs):
        return None
    cut = min(line.find(sign) if sign in line else len(line) for sign in signs)
    return line[:cut].strip().strip("\"'"), line[cut + 1 :].strip()


def keys_in_pytest_sections(text: str, toml: bool) -> Iterator[tuple[str, int]]:
    """Every key set in pytest's sections of a configuration file's text, with its line number."""
    for key, number, _value in _settings(text, toml):
        yield key, number


def _settings(text: str, toml: bool) -> Iterator[tuple[str, int, str]]:
    """Every key set in pytest's sections of a configuration file's text, its line number and the rest
    of its line after the ``=`` or ``:`` (the value, for a one-line value of an ini file).

    In an ini file an indented line continues the value above it; in TOML it may set a key."""
    in_pytest = False
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line.startswith("["):
            in_pytest = _section_name(line) in _SECTIONS
        elif in_pytest and (toml or raw[:1] not in (" ", "\t")):
            setting = _key_value(line, toml)
            if setting is not None and setting[0]:
                yield setting[0], number, setting[1]


def _refused(key: str, origin: str, known: Collection[str]) -> OptionError:
    spelt = key.lower().replace("-", "_")
    close = [spelt] if spelt in known else difflib.get_close_matches(spelt, known, n=1, cutoff=0.6)
    hint = f"did you mean {close[0]}? " if close else ""
    return OptionError(
        origin,
        f"not a setting of pytest-citecheck; {hint}(every key: pytest --help, or {docs_url('configuration')})",
    )


def check_keys(file_name: str | None, text: str, overrides: Iterable[str], known: Collection[str]) -> None:
    """Raise ``OptionError`` for the first key starting with ``citecheck`` that is not one of ``known``:
    in pytest's sections of the file ``text`` (named ``file_name``), then in ``-o KEY=VALUE`` overrides."""
    for key, number in keys_in_pytest_sections(text, toml=str(file_name).endswith(".toml")):
        if key.lower().startswith(PREFIX) and key not in known:
            raise _refused(key, f"ini {key} ({file_name}, line {number})", known)
    for override in overrides:
        key = override.split("=", 1)[0].strip()
        if key.lower().startswith(PREFIX) and key not in known:
            raise _refused(key, f"-o {key}", known)


def written_values(file_name: str | None, text: str, overrides: Iterable[str], keys: Collection[str]) -> dict[str, str]:
    """The text each of ``keys`` is written as, where it is text: the last ``-o KEY=VALUE`` (pytest's
    precedence), else pytest's section of the file ``text`` (a TOML string; a TOML number is one, as TOML
    reads it, and is left out). A key that is not found is left out."""
    found: dict[str, str] = {}
    if str(file_name).endswith(".toml"):
        import tomllib

        tool = tomllib.loads(text).get("tool", {}).get("pytest", {})
        for table in (tool, tool.get("ini_options", {})):  # pytest 9's native table, or ini_options
            found.update((key, value) for key, value in table.items() if isinstance(value, str))
    else:
        found.update((key, value) for key, _number, value in _settings(text, toml=False))
    for override in overrides:
        key, sign, value = override.partition("=")
        if sign:
            found[key.strip()] = value
    return {key: found[key] for key in keys if key in found}

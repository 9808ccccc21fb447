"""The configuration page made of the table of every knob: ``citecheck options`` prints it.

Apart from ``table`` (which pytest loads in every run): only the command and the docs need it.
"""

from __future__ import annotations

from pytest_citecheck._errors import docs_url
from pytest_citecheck._options.table import OPTIONS, Option


def configuration_table() -> str:
    """The Markdown table of every option, for docs/configuration.md."""
    lines = [
        "| setting | flag | ini key | marker / call keyword | default | meaning |",
        "|---|---|---|---|---|---|",
    ]
    for option in OPTIONS:
        keyword = f"`{option.name}=`" if option.per_test else "–"
        meaning = option.help.replace("|", "\\|") + _empty_value(option)
        lines.append(
            f"| {option.name} | `{option.flag}` | `{option.ini}` | {keyword} | `{option.default_text}` | {meaning} |"
        )
    return "\n".join(lines) + "\n"


def _empty_value(option: Option) -> str:
    """What an empty value does, where a reader could take it for "off" (the page's "Empty values")."""
    if not option.takes_none:
        return ""
    given = "flag or keyword" if option.per_test else "flag"
    default = " (no report)" if option.parser == "parse_optional_path" else ""
    return f" An empty {given} value is an error (none turns it off); an empty ini value is the default{default}."


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

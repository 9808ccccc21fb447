"""The documentation states what the code does: the configuration table is the options table."""

from __future__ import annotations

from pathlib import Path

from pytest_citecheck._options import OPTIONS, configuration_table

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_configuration_table_is_generated_from_the_options():
    text = (DOCS / "configuration.md").read_text()
    assert configuration_table() in text, "regenerate the table: python -m pytest_citecheck options"


def test_every_option_has_flag_and_ini_key_in_the_docs():
    text = (DOCS / "configuration.md").read_text()
    for option in OPTIONS:
        assert f"`{option.flag}`" in text
        assert f"`{option.ini}`" in text

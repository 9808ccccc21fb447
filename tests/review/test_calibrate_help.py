"""`citecheck calibrate --help` reads as written (argparse formats help, not the description)."""

from __future__ import annotations

import pytest

from pytest_citecheck._cli import main as citecheck


def test_the_help_says_95_percent_once(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        citecheck(["calibrate", "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "95% Wilson upper bound" in " ".join(out.split())
    assert "%%" not in out

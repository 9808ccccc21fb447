"""The README leads with what a user types, and its test command is exactly the one CI runs."""

from __future__ import annotations

import re

from support import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")
COMMANDS = re.findall(r"```console\n(.*?)\n```", README, flags=re.DOTALL)


def test_the_readme_leads_with_pip_install():
    assert COMMANDS[0] == "pip install pytest-citecheck"
    assert README.index("pip install pytest-citecheck") < README.index("in a clone of this repository")


def test_the_readme_test_command_is_what_ci_runs():
    (suite,) = [command for command in COMMANDS if command.endswith("python -m pytest")]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert suite in ci, "the README's test command must be the line .ci/run runs"
    # The test tools are a dependency group (PEP 735), which pip reads from 25.1 on.
    assert '--upgrade "pip>=25.1"' in suite and "--group test" in suite

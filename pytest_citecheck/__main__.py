"""``python -m pytest_citecheck``: the same as the ``citecheck`` command (its fallback: see docs/usage.md)."""

import sys

from pytest_citecheck._cli import main

sys.exit(main(prog="python -m pytest_citecheck"))

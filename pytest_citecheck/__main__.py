"""``python -m pytest_citecheck``: the same as the ``citecheck`` command."""

import sys

from pytest_citecheck._cli import main

sys.exit(main())

"""``python -m pytest_citecheck``: the same as the ``citecheck`` command."""

import sys

from .cli import main

sys.exit(main())

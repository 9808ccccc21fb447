"""``python -m bench``: run the benchmark (see ``bench.run``)."""

import sys

from bench.run import main

sys.exit(main())

"""``python -m pytest_citecheck.testing``: the rehearsal server, the same command as ``citecheck serve``."""

from pytest_citecheck.testing.serve import main

if __name__ == "__main__":
    raise SystemExit(main(prog="python -m pytest_citecheck.testing"))

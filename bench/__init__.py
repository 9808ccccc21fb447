"""pytest-citecheck's benchmark: ``python -m bench`` (or ``python bench/run.py``) from the repo root.

Every figure is a ratio of two things measured in the same run, each the median of several runs,
because the machines this runs on are noisy. ``--quick`` is the CI regression guard: smaller inputs,
the same goals, and exit status 1 when one is missed by more than its guard margin. The full run
writes ``docs/performance.md``.
"""

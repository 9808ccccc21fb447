"""The human in the loop: the reviews file of decisions, and the ``citecheck review`` command.

Internal: import from ``pytest_citecheck``, not from here."""

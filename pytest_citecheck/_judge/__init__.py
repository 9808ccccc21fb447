"""Step 2, asking Jev: the request, reading its answer strictly, the request limits, retries.

Internal: import from ``pytest_citecheck``, not from here."""

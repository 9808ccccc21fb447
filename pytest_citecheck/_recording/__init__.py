"""Step 4, recording: vcrpy cassettes, their lifecycle (unused, stale, drift, pinning), secrets kept out.

Internal: import from ``pytest_citecheck``, not from here."""

"""Citation shapes: what a user passes (dicts, objects, SDK blocks) turned into ``Citation``s.

Internal: import from ``pytest_citecheck``, not from here."""

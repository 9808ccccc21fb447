"""Source documents: reading a document and splitting it into sections, one module per format.

Internal: import from ``pytest_citecheck``, not from here."""

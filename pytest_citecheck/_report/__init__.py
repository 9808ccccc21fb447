"""What a run reports: the JSON report and terminal summary, the HTML page, merged CI shards.

Internal: import from ``pytest_citecheck``, not from here."""

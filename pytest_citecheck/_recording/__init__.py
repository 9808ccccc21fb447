"""Step 4, recording: Jev's answers in vcrpy cassettes, replayed, checked and kept free of secrets.

From the bottom up: ``matching`` (what identifies a request), ``yaml_reader`` (the fast reader),
``cassette_file`` (format, digests, reading and writing), ``redaction`` (what a cassette and a log
keep of a request), ``lifecycle/`` (stale, model pinning, drift, unused recordings, orphans),
``paths`` (cassette folders and names), ``plays`` (what a request replayed or recorded), ``shared`` (cassettes
several tests share), ``replay`` (serving a cassette without vcrpy), ``vcr_seam`` (the one module
that touches vcrpy) and ``cassette`` (one test's cassette, served by either).

Internal: import from ``pytest_citecheck``, not from here."""

"""Whether the recordings a run replays can still be trusted: stale, unused, orphaned, re-pinned, drifted.

A cassette is only as good as its match with the tests that replay it. This package owns the
bookkeeping and the words for each way that match can break:

- ``stale``: a request misses, but the cassette holds one for the same citation (same claim, or
  same section): say what changed (claim, section, question, model), so the miss reads as a diff;
- ``pinning``: the model that answered a recording is not the model the test asks for (or the test
  asks for an alias such as ``jev-latest``, whose meaning moves): warn, or fail when strict;
- ``unused``: interactions a test that ran to the end did not play, and cassette files that belong
  to no collected test: listed in the summary, failed, or deleted;
- ``drift``: a ``rewrite`` compared with what was recorded before: a *flip* (another verdict) or a
  *shift* (the same verdict, a confidence or probability moved beyond the tolerance).

Pure code over plain dicts (a cassette's JSON bodies, the report's rows), so what a worker finds
crosses to the xdist controller and into a shard's JSON report unchanged.
"""

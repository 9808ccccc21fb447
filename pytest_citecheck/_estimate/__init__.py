"""``--citecheck-estimate``: a dry run that counts what a record run would send to Jev, and sends nothing.

``recording``: the cassette of a test in an estimate run (``EstimatingCassette``): it replays what the
record mode would replay, and counts every other request (``NotSent``) instead of sending it; and
``settle``, which skips a check that would have sent a request (no verdict). ``tally``: the counts of
one test (``TestTally``), the run's (``RunEstimate``: identical requests counted once, per test module
and in total), the token rule, the price, the terminal table and the JSON section.
"""

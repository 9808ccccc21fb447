"""Running the steps for one test: the ``Checker`` and the functions a test calls.

Step 1 for each citation (validate, locate, size) is ``_locate.citations``; ``running`` asks Jev for every
located citation (a thread pool or a task group: the only difference between ``check`` and
``acheck``), and ``checker`` ties the steps to one test's settings, cassette and client.

Internal: import from ``pytest_citecheck``, not from here.
"""

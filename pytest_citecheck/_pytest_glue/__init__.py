"""The pytest glue: the only room (with ``plugin.py`` and ``hookspecs.py``) that imports pytest.

It connects the pytest-free stages to pytest's life cycle and decides nothing itself:

- ``stash``: what the plugin keeps on pytest's config and items (``pytest.StashKey``s);
- ``trigger``: when the session's plugins load (``SessionTrigger``, ``session_plugins``), loaded
  with the plugin in every run;
- ``session`` and ``bookkeeping``: the session's plugins, the run's report (``CitecheckRun``) and
  the bookkeeping of recordings (``CassetteBookkeeping``: unused recordings, orphan cassettes),
  loaded only by a run that checks citations, writes a report or has cassettes;
- ``paths``: where a test's cassette is, from pytest's nodes;
- ``fixtures``: what the fixtures declared in ``plugin`` build (a test's ``Checker``, the SDK
  clients), loaded with the first fixture a test asks for.

``pytest_citecheck.plugin`` stays at the top level: it is the ``pytest11`` entry point, and declares
the options, the marker and the fixtures.
"""

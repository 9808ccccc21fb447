"""The pytest glue: the only room (with ``plugin.py`` and ``hookspecs.py``) that imports pytest.

It connects the pytest-free stages to pytest's life cycle and decides nothing itself:

- here: when the session's plugins load (``SessionTrigger`` decides, ``session_plugins`` registers
  them): pytest loads this package with the plugin in every run, so it is the trigger itself (one
  module fewer for every run to load) and imports only ``stash``;
- ``stash``: what the plugin keeps on pytest's config and items (``pytest.StashKey``s);
- ``controller``: on an xdist controller (which builds no checker), the reports and workers' ends
  that register the session's plugins (``ControllerTrigger``), loaded only there;
- ``session`` and ``bookkeeping``: the session's plugins, the run's report (``CitecheckRun``) and
  the bookkeeping of recordings (``CassetteBookkeeping``: unused recordings, orphan cassettes),
  loaded only by a run that checks citations, writes a report or has cassettes; neither imports
  this package, so they make no cycle;
- ``paths``: where a test's cassette is, from pytest's nodes;
- ``fixtures``: what the fixtures declared in ``plugin`` build (a test's ``Checker``, the SDK
  clients), loaded with the first fixture a test asks for;
- ``threads``: the test's checker built once, whichever of its threads asks first, and pytest's
  fixtures asked for one thread at a time (loaded with ``fixtures``).

``pytest_citecheck.plugin`` stays at the top level: it is the ``pytest11`` entry point, and declares
the options, the marker and the fixtures.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import pytest

from pytest_citecheck._pytest_glue.stash import COLLECTED, SESSION_PLUGINS, SETTINGS, collected_modules

if TYPE_CHECKING:
    from pytest_citecheck._pytest_glue.bookkeeping import CassetteBookkeeping
    from pytest_citecheck._pytest_glue.session import CitecheckRun


def session_plugins(config: pytest.Config) -> tuple[CitecheckRun, CassetteBookkeeping]:
    """The session's report and recording bookkeeping (``session``), registered with pytest when first needed.

    That is: when reports were asked for, when the collected tests have cassettes, when a test builds
    a checker, or when a report arrives carrying citation rows (an xdist controller). Registered in
    the middle of a hook call, they miss that call: the caller hands it on. Registered once, under a
    lock: a test's first checks may come from several of its threads at once (pytest-run-parallel).
    """
    if SESSION_PLUGINS not in config.stash:
        with _REGISTERING:
            if SESSION_PLUGINS not in config.stash:
                _register(config)
    return config.stash[SESSION_PLUGINS]


def _register(config: pytest.Config) -> None:
    from pytest_citecheck._gc_paused import gc_paused

    with gc_paused():  # a run's second largest loading, after the first check's (``_gc_paused``)
        from pytest_citecheck._pytest_glue.bookkeeping import CassetteBookkeeping
        from pytest_citecheck._pytest_glue.session import CitecheckRun

    run = CitecheckRun(config)
    bookkeeping = CassetteBookkeeping(config, run)
    config.pluginmanager.register(run, "citecheck-run")
    config.pluginmanager.register(bookkeeping, "citecheck-cassettes")
    config.stash[SESSION_PLUGINS] = (run, bookkeeping)


# Re-entrant: registering calls other plugins' hooks (``pytest_plugin_registered``) on this thread.
_REGISTERING = threading.RLock()


class SessionTrigger:
    """Registers the session's plugins (``session_plugins``) when the run turns out to need them.

    Registered by ``plugin.pytest_configure`` in their place: it notes the collected tests, and
    costs a suite that checks no citation a few hook calls.
    """

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        config.stash[COLLECTED] = []
        settings = config.stash[SETTINGS]
        if settings.json or settings.html:
            session_plugins(config)  # written at the end even if nothing was checked

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        self.config.stash[COLLECTED].extend(items)

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self.config.stash[COLLECTED].extend(items)  # deselected before we saw them; a duplicate only repeats a name

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Cassettes beside the collected tests: unused recordings and orphan cassettes are looked for."""
        if SESSION_PLUGINS in self.config.stash:
            return
        cassette_dir = self.config.stash[SETTINGS].cassette_dir
        modules = collected_modules(self.config.stash[COLLECTED]).values()
        if any((folder / cassette_dir).is_dir() for folder in {module.parent for module in modules}):
            session_plugins(self.config)

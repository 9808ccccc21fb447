"""A suite that checks no citation pays nothing for the heavy dependencies (behaviour, not timing)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support import LOOP_SCOPE_OPTION, NOT_A_USERS_PLUGINS

HEAVY = ("typesafe_sdk", "vcr", "yaml", "httpx2", "tenacity", "rapidfuzz", "pypdf", "pypdfium2")
# The LLM SDKs whose shapes the adapters read: never imported by pytest-citecheck itself.
SDKS = ("anthropic", "openai", "langchain_core", "llama_index")


# What the plugin loads only when a run needs it: the session's report and bookkeeping of recordings,
# what the fixtures build, the functions a test calls, the log redaction, the checker.
LOADED_WHEN_NEEDED = (
    "pytest_citecheck._pytest_glue.session",
    "pytest_citecheck._pytest_glue.bookkeeping",
    "pytest_citecheck._pytest_glue.fixtures",
    "pytest_citecheck._check.api",
    "pytest_citecheck._check.checker",
    "pytest_citecheck._recording.redaction",
    "pytest_citecheck._report.run_report",
)


@pytest.mark.parametrize("cassettes", [False, True], ids=["no-cassettes", "a-cassette-directory"])
def test_checking_no_citation_loads_nothing_heavy_and_the_session_plugins_only_for_cassettes(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, cassettes: bool
) -> None:
    pytester.makeini("[pytest]\n")
    pytester.makeconftest(
        f"""
        import sys

        def pytest_sessionfinish(session):
            print("PLUGIN-LOADED:", "pytest_citecheck.plugin" in sys.modules)
            print("HEAVY:", ",".join(sorted(name for name in {HEAVY + SDKS!r} if name in sys.modules)) or "none")
            print("OURS:", ",".join(sorted(name for name in {LOADED_WHEN_NEEDED!r} if name in sys.modules)) or "none")
            print("SESSION-PLUGINS:", session.config.pluginmanager.get_plugin("citecheck-run") is not None)
        """
    )
    pytester.makepyfile(test_plain="def test_one():\n    assert 1 + 1 == 2\n\ndef test_two():\n    assert 'a' < 'b'\n")
    if cassettes:
        (pytester.path / "cassettes").mkdir()  # unused recordings and orphans are looked for
    # A fresh interpreter with only pytest's own plugins and ours, so nothing else imports them first.
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    result = pytester.runpytest_subprocess("-p", "pytest_citecheck.plugin", "-s")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*PLUGIN-LOADED: True*", "*HEAVY: none*"])
    if cassettes:
        # The session's plugins alone: the bookkeeping of cassettes loads, nothing that checks a citation does.
        result.stdout.fnmatch_lines(
            [
                "*OURS: pytest_citecheck._pytest_glue.bookkeeping,pytest_citecheck._pytest_glue.session",
                "*SESSION-PLUGINS: True",
            ]
        )
    else:
        result.stdout.fnmatch_lines(["*OURS: none", "*SESSION-PLUGINS: False"])


# Every module of ours that a run checking no citation (and setting no knob of ours) imports: the package,
# its dependency check, the options and their table, the glue (its package is the session trigger) and its
# stash, the hooks (what the session hands the pytest-free modules), the verdicts. Each one is paid by every
# pytest run of every user (through pytest's assertion rewriting, in an installed plugin: about 0.8 M
# instructions a module, and 170 a byte of its bytecode): a new one belongs in a function.
START_UP = (
    "pytest_citecheck",
    "pytest_citecheck._dependencies",
    "pytest_citecheck._hooks",
    "pytest_citecheck._options",
    "pytest_citecheck._options.table",
    "pytest_citecheck._pytest_glue",
    "pytest_citecheck._pytest_glue.stash",
    "pytest_citecheck._secrets",  # the header's notice of a key too short to redact (not under -q)
    "pytest_citecheck._verdicts",
    "pytest_citecheck.hookspecs",
    "pytest_citecheck.plugin",
)


def test_a_run_that_checks_no_citation_imports_only_the_start_up_modules_of_ours(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeini("[pytest]\n")
    pytester.makeconftest(
        """
        import sys

        def pytest_unconfigure(config):
            print("OURS:", ",".join(sorted(name for name in sys.modules if name.split(".")[0] == "pytest_citecheck")))
        """
    )
    pytester.makepyfile(test_plain="def test_one():\n    assert 1 + 1 == 2\n")
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    # Without the inner runs' rehearsal opt-in: a run that sets a knob of ours reads it (``_options.parsing``).
    monkeypatch.setenv("PYTEST_ADDOPTS", " ".join(NOT_A_USERS_PLUGINS + LOOP_SCOPE_OPTION))
    result = pytester.runpytest_subprocess("-p", "pytest_citecheck.plugin", "-s", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    [line] = [line for line in result.stdout.lines if line.startswith("OURS:")]
    loaded = set(line.split(":", 1)[1].strip().split(","))
    assert loaded == set(START_UP), (
        f"imported in a run that checks no citation, and not a start-up module: {sorted(loaded - set(START_UP))}; "
        f"no longer imported (take it off START_UP): {sorted(set(START_UP) - loaded)}"
    )


def test_the_adapters_read_sdk_shapes_without_importing_the_sdks(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeini("[pytest]\n")
    pytester.makepyfile(
        test_shapes=f"""
        import sys

        from pytest_citecheck import Corpus, check_retrieval, citations_from_markers, citations_from_openai
        from pytest_citecheck._citations.adapt import adapt_citations

        def test_shapes_as_dicts():
            message = {{"type": "message", "role": "assistant", "content": [{{"type": "text", "text": "Refunds take 30 days.",
                "citations": [{{"type": "char_location", "cited_text": "within 30 days", "document_index": 0,
                                "start_char_index": 0, "end_char_index": 14}}]}}]}}
            response = {{"object": "response", "output": [{{"type": "message", "content": [{{"type": "output_text",
                "text": "Refunds take 30 days.", "annotations": [{{"type": "file_citation", "file_id": "f",
                "filename": "refunds.md", "index": 21}}]}}]}}]}}
            chunk = {{"page_content": "Refunds are issued within 30 days.", "metadata": {{"source": "refunds.md"}}}}
            assert len(adapt_citations(message)) == len(adapt_citations(response)) == 1
            assert len(citations_from_openai(response)) == 1
            assert len(citations_from_markers("Refunds take 30 days [1].", [chunk])) == 1
            assert check_retrieval([chunk], Corpus.from_documents([chunk]))[0].ok
            assert not [name for name in {SDKS!r} if name in sys.modules]
        """
    )
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    result = pytester.runpytest_subprocess("-p", "pytest_citecheck.plugin")
    result.assert_outcomes(passed=1)


# The adapter test modules that build SDK objects: collected by every xdist worker, so they import
# the SDKs only when a test of theirs runs (tests/citations/test_adapters_e2e.py: in a module-scoped fixture).
ADAPTER_TEST_MODULES = (
    "citations/test_adapter_anthropic.py",
    "citations/test_adapter_openai.py",
    "citations/test_adapter_markers.py",
    "sources/test_adapter_documents.py",
    "citations/test_adapters_e2e.py",
)


def test_collecting_the_adapter_tests_imports_no_sdk(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        record_sdks=f"""
        import sys

        def pytest_collection_finish(session):
            print("COLLECTED:", len(session.items))
            print("SDKS:", ",".join(sorted(name for name in {SDKS + ("pypdf", "pypdfium2")!r} if name in sys.modules)) or "none")
        """
    )
    tests = Path(__file__).parent.parent
    # A fresh interpreter collecting those modules with this repository's ini and conftest, as each
    # xdist worker does (-n0: here, in the process the plugin reports from; no cache in the repository).
    result = pytester.runpytest_subprocess(
        "--collect-only",
        "-q",
        "-s",
        "-n0",
        "-p",
        "no:cacheprovider",
        "-p",
        "record_sdks",
        "--rootdir",
        str(tests.parent),
        *(str(tests / name) for name in ADAPTER_TEST_MODULES),
    )
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.stdout.fnmatch_lines(["COLLECTED: [1-9]*", "SDKS: none"])


# The modules that read an SDK's answer (``_citations.shapes`` and one per SDK): a check of plain citation
# dicts, what most suites pass, never needs them.
SHAPE_MODULES = (
    "pytest_citecheck._citations.shapes",
    "pytest_citecheck._citations.anthropic",
    "pytest_citecheck._citations.openai",
    "pytest_citecheck._citations.gemini",
    "pytest_citecheck._citations.langchain",
    "pytest_citecheck._citations.bedrock",
    "pytest_citecheck._citations.retrieval_answers",
    # and the scanners of Markdown and reStructuredText markup (``_locate.display``), for a source of plain text
    "pytest_citecheck._locate.display.markdown",
    "pytest_citecheck._locate.display.rst",
)

SHAPES_PROBE = f"""
import sys

def pytest_runtest_teardown(item):
    print("SHAPES AFTER", item.name + ":", ",".join(sorted(name.rsplit(".", 1)[1] for name in {SHAPE_MODULES!r} if name in sys.modules)) or "none")
"""


def test_plain_citation_dicts_of_plain_text_load_no_shape_or_markup_module_and_others_load_them(
    suite: pytest.Pytester, jev_server: Any, offline: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Recorded, then replayed offline, in a fresh interpreter each: the plain dicts' test first, then a
    Claude message's (its citation read from the message), which loads the shapes and is checked alike, then
    a Markdown source's, whose quote of the displayed words ("the latest psmisc") is found through the markup."""
    suite.makeconftest(SHAPES_PROBE)
    suite.makepyfile(
        test_app="""
        from cookbook import SOURCE, pick
        from pytest_citecheck import Source, assert_citations_supported

        def test_a_plain_dicts():
            assert_citations_supported(pick("epoch_seconds"), SOURCE)

        def test_b_a_claude_message():
            cited = pick("aud_reject")[0]
            message = {"type": "message", "role": "assistant", "content": [{"type": "text", "text": cited["claim"],
                "citations": [{"type": "content_block_location", "cited_text": cited["quote"], "document_index": 0,
                               "document_title": None, "start_block_index": 0, "end_block_index": 1}]}]}
            assert_citations_supported(message, SOURCE)

        def test_c_a_markdown_source():
            source = Source.from_text("# Getting it\\n\\nFor the latest **psmisc** source, visit the [page](https://x.test).\\n")
            cited = {"id": "md", "claim": "The source is online.", "quote": "the latest psmisc source", "section": None}
            assert_citations_supported([cited], source)
        """
    )
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    suite.runpytest_subprocess("-p", "pytest_citecheck.plugin", "--citecheck-record-mode=once").assert_outcomes(
        passed=3
    )
    offline()
    jev_server.stop()
    result = suite.runpytest_subprocess(
        "-p", "pytest_citecheck.plugin", "--citecheck-record-mode=none", "-s", "-p", "no:randomly"
    )
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        [
            "*SHAPES AFTER test_a_plain_dicts: none*",
            "*SHAPES AFTER test_b_a_claude_message: anthropic,bedrock,gemini,langchain,openai,retrieval_answers,shapes*",
            "*SHAPES AFTER test_c_a_markdown_source: anthropic,bedrock,gemini,langchain,markdown,openai,*,shapes*",
        ]
    )

"""Regenerate docs/img/github-step-summary.{md,png}: the GitHub Actions step summary of the RFC 7519 example.

Runs the cookbook's eight citations as an app's tests would (``assert_citations_supported``, so the
two planted citations fail their tests), replaying the example's committed cassettes with no key,
with ``GITHUB_ACTIONS``/``GITHUB_STEP_SUMMARY`` set as GitHub sets them. The Markdown the plugin
appends is kept as ``github-step-summary.md``; it is then rendered to HTML with markdown-it-py in a
GitHub-like style and photographed in headless Chromium (Debian's ``chromium`` and
``chromium-driver``; ``pip install markdown-it-py selenium``). The picture is a rendering of the
summary, not a screenshot of GitHub, and says so.

    python docs/img/make_github_summary_screenshot.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from chromium import headless_chromium

HERE = Path(__file__).resolve().parent
EXAMPLE = HERE.parent.parent / "examples" / "rfc7519"
# The example's module and test names, so its committed cassettes are the ones replayed.
TEST_FILE = '''
import json, pathlib
import pytest
from pytest_citecheck import Source, assert_citations_supported

HERE = pathlib.Path(__file__).parent
RFC7519 = Source.from_file(HERE / "rfc7519.txt", format="rfc")
CITATIONS = json.loads((HERE / "citations.json").read_text())

@pytest.mark.parametrize("citation", CITATIONS, ids=[c["id"] for c in CITATIONS])
def test_cookbook_citation(citation):
    assert_citations_supported([citation], RFC7519)
'''

STYLE = """
body { margin: 0; background: #f6f8fa; font: 14px/1.5 -apple-system, BlinkMacSystemFont, "Segoe UI", "Noto Sans",
       Helvetica, Arial, sans-serif; color: #1f2328; }
.card { margin: 16px; background: #fff; border: 1px solid #d0d7de; border-radius: 6px; }
.card > header { padding: 8px 16px; border-bottom: 1px solid #d0d7de; font-weight: 600; }
.card > header small { font-weight: 400; color: #59636e; }
.markdown-body { padding: 8px 24px 16px; }
h2 { font-size: 1.5em; font-weight: 600; padding-bottom: .3em; border-bottom: 1px solid #d1d9e0b3; margin: 16px 0; }
h3 { font-size: 1.25em; font-weight: 600; margin: 24px 0 16px; }
table { border-collapse: collapse; margin: 0 0 16px; display: block; width: max-content; max-width: 100%; }
th, td { border: 1px solid #d1d9e0; padding: 6px 13px; }
th { font-weight: 600; }
tr:nth-child(2n) { background: #f6f8fa; }
code { font: 85% ui-monospace, SFMono-Regular, Menlo, monospace; background: #818b981f; padding: .2em .4em;
       border-radius: 6px; }
p { margin: 0 0 16px; }
"""


def run_example(workdir: Path) -> str:
    for name in ("rfc7519.txt", "citations.json", "pytest.ini"):
        shutil.copy(EXAMPLE / name, workdir / name)
    shutil.copytree(EXAMPLE / "cassettes", workdir / "cassettes")
    (workdir / "test_rfc7519.py").write_text(TEST_FILE)
    summary = workdir / "summary.md"
    environment = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("TYPESAFE_", "GITHUB_"))},
        "GITHUB_ACTIONS": "true",
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_WORKSPACE": str(workdir),
    }
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "test_rfc7519.py"],
        cwd=workdir,
        env=environment,
        capture_output=True,
        text=True,
    )
    print("\n".join(line for line in result.stdout.splitlines() if line.startswith("::error")))
    return summary.read_text(encoding="utf-8")


def render(markdown: str) -> str:
    from markdown_it import MarkdownIt

    body = MarkdownIt("commonmark").enable("table").render(markdown)
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>Step summary (rendering)</title><style>{STYLE}</style></head><body>"
        "<section class='card'><header>pytest summary "
        "<small>— a rendering of the Markdown pytest-citecheck appends to GITHUB_STEP_SUMMARY, "
        "in a GitHub-like style</small></header>"
        f"<div class='markdown-body'>{body}</div></section></body></html>"
    )


def screenshot(page: Path, picture: Path) -> None:
    with headless_chromium(1100, 800) as driver:
        driver.get(page.as_uri())
        height = driver.execute_script("return document.documentElement.scrollHeight")
        driver.set_window_size(1100, int(height) + 120)  # the window's chrome is not part of the viewport
        driver.get(page.as_uri())
        driver.find_element("css selector", ".card").screenshot(str(picture))


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        markdown = run_example(Path(tmp))
        (HERE / "github-step-summary.md").write_text(markdown, encoding="utf-8")
        page = Path(tmp) / "summary.html"
        page.write_text(render(markdown), encoding="utf-8")
        screenshot(page, HERE / "github-step-summary.png")
    print(f"wrote {HERE / 'github-step-summary.md'} and {HERE / 'github-step-summary.png'}")


if __name__ == "__main__":
    main()

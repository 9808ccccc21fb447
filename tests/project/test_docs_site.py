"""The documentation a pip user can reach: the MkDocs site builds with --strict, and every message and
README link that refers to the documentation names a page (and heading) that exists in the built site."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from pytest_citecheck._errors import DOCS_URL, docs_url

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "pytest_citecheck"


def docs_links_in_the_package() -> set[tuple[str, str]]:
    """Every ``docs_url(page, anchor)`` the package's messages use, as (page, anchor)."""
    links = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "docs_url":
                args = [arg.value for arg in node.args if isinstance(arg, ast.Constant)]
                assert len(args) == len(node.args), f"{path.name}: docs_url takes literal page and anchor names"
                links.add((args[0], args[1] if len(args) > 1 else ""))
    return links


def non_docstring_strings(tree: ast.AST) -> list[str]:
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def test_docs_url_is_the_documentation_url_pyproject_publishes() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["urls"]["Documentation"] == DOCS_URL
    assert docs_url("usage", "reading-a-failure") == DOCS_URL + "usage/#reading-a-failure"


def test_no_message_points_at_a_docs_folder_a_pip_user_does_not_have() -> None:
    offenders = [
        f"{path.relative_to(REPO)}: {text!r}"
        for path in PACKAGE.rglob("*.py")
        for text in non_docstring_strings(ast.parse(path.read_text(encoding="utf-8")))
        if re.search(r"docs/[\w-]+\.md", text)
    ]
    assert offenders == [], "name the docs site page with docs_url(...) instead"
    assert ("usage", "reading-a-failure") in docs_links_in_the_package()  # the failure message's hint


def test_the_site_navigation_follows_docs_index() -> None:
    index_pages = re.findall(r"^\| \[([\w-]+\.md)\]", (REPO / "docs" / "index.md").read_text(encoding="utf-8"), re.M)
    nav_pages = re.findall(r"^  - [^:]+: ([\w-]+\.md)$", (REPO / "mkdocs.yml").read_text(encoding="utf-8"), re.M)
    assert index_pages, "docs/index.md lists its pages in a table"
    assert nav_pages[0] == "index.md"
    assert nav_pages[1 : 1 + len(index_pages)] == index_pages
    assert {"architecture.md", "api.md"} <= set(nav_pages)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The documentation site, built the way CI and Read the Docs build it (strict: a broken link fails)."""
    site_dir = tmp_path_factory.mktemp("site")
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert built.returncode == 0, built.stderr
    return site_dir


def page_ids(site: Path, url: str) -> tuple[Path, set[str]]:
    assert url.startswith(DOCS_URL), url
    page = url[len(DOCS_URL) :].split("#")[0]
    html = site / page / "index.html"
    assert html.is_file(), f"{url}: no page {page!r} in the built site"
    return html, set(re.findall(r'\bid="([^"]+)"', html.read_text(encoding="utf-8")))


@pytest.mark.slow
def test_every_docs_link_in_a_message_names_a_page_and_heading_of_the_built_site(site: Path) -> None:
    for page, anchor in sorted(docs_links_in_the_package()):
        url = docs_url(page, anchor)
        html, ids = page_ids(site, url)
        assert not anchor or anchor in ids, f"{url}: {html.relative_to(site)} has no heading #{anchor}"


@pytest.mark.slow
def test_the_readme_links_work_on_pypi(site: Path) -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)\s]+)\)", readme)
    assert targets, "the README links to the documentation"
    relative = [target for target in targets if not re.match(r"https?://", target)]
    assert relative == [], "PyPI shows the README without the repository: use absolute URLs"
    for url in targets:
        if url.startswith(DOCS_URL):
            html, ids = page_ids(site, url)
            anchor = url.partition("#")[2]
            assert not anchor or anchor in ids, f"{url}: no heading #{anchor}"


@pytest.mark.slow
def test_the_api_reference_is_generated_from_the_docstrings(site: Path) -> None:
    api = (site / "api" / "index.html").read_text(encoding="utf-8")
    for name in ("Source", "Corpus", "assert_citations_supported", "check_citations", "Checker", "CitationResult"):
        assert f'id="pytest_citecheck.{name}"' in api, name
    for name in ("CitecheckError", "CitationInputError", "JudgeError", "CassetteMissError", "CitationsNotSupported"):
        assert f'id="pytest_citecheck.{name}"' in api, name
    # A docstring's words, rendered: the page is made from the code, not written by hand.
    assert "Check citations and return one" in api


@pytest.mark.slow
def test_the_architecture_diagram_is_rendered_by_a_mermaid_shipped_with_the_site(site: Path) -> None:
    page = (site / "architecture" / "index.html").read_text(encoding="utf-8")
    assert '<pre class="mermaid"><code>flowchart' in page  # a diagram for mermaid, not a code block
    assert 'src="../assets/javascripts/mermaid.min.js"' in page  # loaded from the site, not a CDN
    assert (site / "assets" / "javascripts" / "mermaid.min.js").stat().st_size > 1_000_000

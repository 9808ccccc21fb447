"""A task list's boxes keep their state in an HTML page's text (sources-leftovers-3).

Markdown writes a task list ``- [x] done`` / ``- [ ] not done``, and a Markdown source keeps the boxes
in its text. Rendered to HTML (GitHub, GitLab, markdown-it's task-lists plugin, pandoc), each box is an
``<input type="checkbox">``, ``checked`` or not, and the ``html`` layout dropped it with every other
empty element: "Publish the advisory" read alike done or not, so a claim "the advisory is published",
quoting the unchecked item, was judged on a section that did not say it was not done, and the loopback
Jev's "supports" passed it. A checkbox that opens a list item is read as Markdown writes it now,
``[x] `` or ``[ ] ``; a checkbox elsewhere (Node.js's docs put one in every code example, a CommonJS / ES
module toggle) is a control and is not read.
"""

from __future__ import annotations

import pytest
from support import quotes_of_a_page

from pytest_citecheck import Source
from pytest_citecheck.testing import JevServer

# markdown-it-task-lists' rendering (its test fixture's "default" case); pandoc puts the box in a <label>.
PAGE = """<h1>Release checklist</h1>
<ul class="contains-task-list">
<li class="task-list-item"><input class="task-list-item-checkbox" checked="checked" disabled="disabled" type="checkbox"> Tag the release</li>
<li class="task-list-item"><input class="task-list-item-checkbox" disabled="disabled" type="checkbox"> Publish the advisory</li>
<li><label><input type="checkbox" checked="" />Announce on the mailing list</label></li>
</ul>
<pre><input class="js-flavor-toggle" type="checkbox" checked aria-label="Show modern ES modules syntax"><code>import url from 'node:url';</code></pre>
"""


def test_a_task_list_s_boxes_are_read_as_markdown_writes_them() -> None:
    section = Source.from_text(PAGE, format="html").sections["Release checklist"]
    assert "[x] Tag the release" in section
    assert "[ ] Publish the advisory" in section
    assert "[x] Announce on the mailing list" in section
    assert "[x] import" not in section and "import url from 'node:url';" in section  # a toggle, not an item


def test_offsets_into_the_page_still_land_where_they_point() -> None:
    source = Source.from_text(PAGE, format="html")
    at = PAGE.index("Publish the advisory")
    placed = source.place(at, at + len("Publish the advisory"))
    assert placed is not None
    assert source.sections[placed.section][placed.start : placed.end] == "Publish the advisory"


def test_the_judge_reads_the_box_s_state(pytester: pytest.Pytester, jev_server: JevServer) -> None:
    """The quote is found either way; the section the request carries (the recorded cassette) says it is not done."""
    rows = quotes_of_a_page(pytester, PAGE, {"advisory": "Publish the advisory"}, "passed", name="release.html")
    assert [row["status"] for row in rows] == ["found"]
    recorded = [path.read_text() for path in pytester.path.rglob("*.yaml")]
    assert recorded and any("[ ] Publish the advisory" in text for text in recorded)
    assert not any(" Tag the release" in text and "[x] Tag the release" not in text for text in recorded)

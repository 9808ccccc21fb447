"""What CSS hides from a reader, for the HTML reader (``html.py``): a declaration that hides (``HIDING``), and
the simple selectors of the page's own ``<style>`` rules that do (``hiding_rules``).

Only the page's own rules are read (a linked stylesheet is not fetched), and only those that hold on
every screen: a rule inside ``@media`` or another at-rule, or in a ``<style media="print">``, hides nothing here, nor does a selector that
needs context (``nav .x``, ``.x:hover``, ``a > b``). Reading too little as hidden only ever keeps text.
"""

from __future__ import annotations

import re
from typing import NamedTuple

# A declaration that leaves an element's text unseen: not displayed, invisible, fully transparent, or
# in a font of size zero (how hidden instructions and SEO text are planted in pages).
HIDING = re.compile(
    r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse)|opacity\s*:\s*(?:0+(?:\.0*)?|\.0+)%?"
    r"|font-size\s*:\s*(?:0+(?:\.0*)?|\.0+)(?:[a-z]+|%)?)\s*(?:!important\s*)?(?=;|$)",
    re.I,
)
_STYLE_BLOCK = re.compile(r"<style\b([^>]*)>(.*?)</style\s*>", re.I | re.S)
# A style block for some media only (``media="print"``) hides nothing on a screen.
_FOR_SOME_MEDIA = re.compile(r"""\bmedia\s*=\s*["']?(?!\s*(?:all|screen)\s*["'\s>]|["'])""", re.I)
_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_BRACES = re.compile(r"[{}]")
# A simple selector: an optional tag, then .class and #id parts (``p.ghost``, ``.legal``, ``#fine-print``).
_SIMPLE = re.compile(r"([a-z][a-z0-9]*)?((?:[.#][-\w]+)*)", re.I)
_PART = re.compile(r"([.#])([-\w]+)")


class Selector(NamedTuple):
    tag: str | None
    classes: frozenset[str]
    id: str | None


class Hiding:
    """The page's hiding selectors, indexed by id, by a class and by tag (an element is compared with the
    few its own id, classes and tag name: linear in the page however many rules it has)."""

    def __init__(self, selectors: list[Selector]) -> None:
        self.index: dict[tuple[str, str], list[Selector]] = {}
        for selector in selectors:
            if selector.id is not None:
                key = ("#", selector.id)
            elif selector.classes:
                key = (".", min(selector.classes))
            else:
                key = ("", selector.tag or "")
            self.index.setdefault(key, []).append(selector)

    def hides(self, tag: str, classes: set[str], element_id: str | None) -> bool:
        keys = [("", tag), *((".", name) for name in classes)]
        if element_id is not None:
            keys.append(("#", element_id))
        return any(
            (selector.tag is None or selector.tag == tag)
            and selector.classes <= classes
            and (selector.id is None or selector.id == element_id)
            for key in keys
            for selector in self.index.get(key, ())
        )


def hiding_rules(page: str) -> Hiding | None:
    """The simple selectors of the page's top-level ``<style>`` rules that hide (``HIDING``); None when none."""
    selectors: list[Selector] = []
    for block in _STYLE_BLOCK.finditer(page):
        if _FOR_SOME_MEDIA.search(block.group(1)):
            continue
        for selector_list, body in _top_level_rules(_COMMENT.sub(" ", block.group(2))):
            if HIDING.search(body):
                selectors += filter(None, map(_simple, selector_list.split(",")))
    return Hiding(selectors) if selectors else None


def _top_level_rules(css: str) -> list[tuple[str, str]]:
    """(selectors, declarations) of each rule outside any at-rule's block."""
    rules, depth, start, opened = [], 0, 0, 0
    for brace in _BRACES.finditer(css):
        if brace.group() == "{":
            if depth == 0:
                opened = brace.start()
            depth += 1
        elif depth:
            depth -= 1
            if depth == 0:
                # What precedes the block since the last statement (``@import ...;``) is its selector.
                prelude = css[start:opened].rsplit(";", 1)[-1].strip()
                body = css[opened + 1 : brace.start()]
                if not prelude.startswith("@") and "{" not in body:
                    rules.append((prelude, body))
                start = brace.end()
    return rules


def _simple(text: str) -> Selector | None:
    match = _SIMPLE.fullmatch(text.strip())
    if match is None or not match.group(0):
        return None
    parts = _PART.findall(match.group(2))
    ids = [name for mark, name in parts if mark == "#"]
    if len(ids) > 1:
        return None
    tag = match.group(1).lower() if match.group(1) else None
    return Selector(tag, frozenset(name for mark, name in parts if mark == "."), ids[0] if ids else None)

"""Plain citation dicts are read at once (issue 27: ``adapt.adapt_answer``'s fast path); what it makes of
any input, and every error it raises, must be what the general path makes and raises, and a
``pytest_citecheck_adapt_citation`` implementation is still called for every citation."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pluggy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_citecheck import Citation, CitationInputError, Corpus, Source, hookspecs
from pytest_citecheck._citations import adapt, shapes
from pytest_citecheck._citations.adapt import adapt_answer
from pytest_citecheck._citations.shapes import adapted_in_general

TEXT = "1. One\n\nThe first section says one thing.\n\n2. Two\n\nThe second section says another.\n"
SOURCES = [
    None,
    Source.from_text(TEXT),
    Source.from_text(TEXT, name="doc.txt"),
    Corpus({"doc.txt": TEXT, "other": TEXT}),
]


class Text(str):
    """A str subclass: not plain, so read the long way."""


class Number(int):
    """An int subclass: not plain."""


class Hostile(dict):  # type: ignore[type-arg]
    """A dict subclass whose ``get`` lies."""

    def get(self, key: Any, default: Any = None) -> Any:
        return "lie"


VALUES = st.sampled_from(
    [
        None,
        "",
        "   ",
        "x",
        " 4 ",
        "4.1",
        "The first section says one thing.",
        "doc.txt",
        "other",
        "nowhere",
        0,
        4,
        -1,
        True,
        False,
        4.10,
        b"x",
        [],
        ["1"],
        ["1", "2"],
        ["1", "1"],
        ("2",),
        [4, "x"],
        {"a": 1},
        Text("x"),
        Text("   "),
        Number(4),
        object(),
    ]
)
# A citation's keys, misspelt ones, an SDK shape's, and keys that are not plain str.
KEYS = st.sampled_from(
    ["id", "claim", "quote", "section", "document", "qoute", "Quote", "ids", "type", "text", "citations", 1, Text("id")]
)
GOOD = st.fixed_dictionaries(
    {
        "claim": st.sampled_from(["One thing.", " Another. "]),
        "quote": st.sampled_from(["says one thing", "The second section says another.", "not in it at all", None]),
        "section": st.sampled_from([None, "1", " 2 ", "9", 1, 2]),
    },
    optional={
        "id": st.sampled_from([None, "c0", "c1", " c2 ", 0, 7]),
        "document": st.sampled_from([None, "doc.txt", "other", "./doc.txt", "nowhere"]),
    },
)
REMOVED = object()


def changed(fields: dict[Any, Any], changes: list[tuple[Any, Any]]) -> dict[Any, Any]:
    """A good citation dict with a few keys set to other values (any value, a bad key) or taken out."""
    fields = dict(fields)
    for key, value in changes:
        if value is REMOVED:
            fields.pop(key, None)
        else:
            fields[key] = value
    return fields


# Mostly plain dicts the fast path reads; some one change away from one (a bad value, a missing or extra key).
PLAIN_DICTS = st.one_of(
    GOOD,
    GOOD,
    st.builds(changed, GOOD, st.lists(st.tuples(KEYS, st.one_of(VALUES, st.just(REMOVED))), min_size=1, max_size=2)),
)
DICTS = st.dictionaries(KEYS, VALUES, max_size=6)
ITEMS = st.one_of(
    PLAIN_DICTS,
    PLAIN_DICTS,
    DICTS,
    PLAIN_DICTS.map(Hostile),
    PLAIN_DICTS.map(lambda fields: SimpleNamespace(**{str(key): value for key, value in fields.items()})),
    st.just({"type": "text", "text": "Uncited text."}),
    st.sampled_from([None, "a citation", 3, b"x", Citation(id="made", claim="c", quote=None, section="1")]),
)
CITATIONS = st.one_of(
    st.lists(GOOD, max_size=4),
    st.lists(GOOD, max_size=4),
    st.lists(PLAIN_DICTS, max_size=4),
    st.lists(PLAIN_DICTS, max_size=4),
    st.lists(ITEMS, max_size=4),
    st.lists(ITEMS, max_size=3).map(tuple),
    PLAIN_DICTS,
    st.sampled_from([None, "text", 3]),
)


def valid(number: int, **fields: Any) -> dict[str, Any]:
    return {"id": f"c{number}", "claim": "One thing.", "quote": "says one thing", "section": "1", **fields}


def outcome(read: Any, citations: Any, hooks: Any, source: Any) -> tuple[Any, ...]:
    """What a read makes of ``citations``: its citations, uncited sentences and invalid ones, or its error."""
    try:
        adapted = read(citations, hooks, source=source)
    except CitationInputError as error:
        return ("error", type(error), str(error), error.citation, error.field)
    invalid = {key: (type(error), str(error), error.citation, error.field) for key, error in adapted.invalid.items()}
    return ("adapted", adapted.citations, adapted.uncited, invalid)


def no_hooks() -> Any:
    manager = pluggy.PluginManager("pytest")
    manager.add_hookspecs(hookspecs)
    return manager.hook


@settings(max_examples=1500, deadline=None)
@given(CITATIONS, st.sampled_from(range(len(SOURCES))), st.booleans())
def test_the_fast_path_reads_any_input_as_the_general_path_does(citations: Any, source: int, hooks: bool) -> None:
    relay = no_hooks() if hooks else None
    assert outcome(adapt_answer, citations, relay, SOURCES[source]) == outcome(
        adapted_in_general, citations, relay, SOURCES[source]
    )


@pytest.mark.parametrize(
    "citation",
    [
        valid(0),
        valid(0, id=None),
        valid(0, id=7),
        valid(0, quote=None),
        valid(0, section=None),
        valid(0, section=" 2 "),
        valid(0, section=2),
        valid(0, document="doc.txt"),
        valid(0, document="other", section=None),
        {"claim": "One thing.", "section": "1"},
        {"claim": "One thing.", "document": "nowhere"},
    ],
)
@pytest.mark.parametrize("source", SOURCES)
def test_valid_plain_dicts_are_read_without_the_general_path(
    citation: dict[str, Any], source: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = outcome(adapted_in_general, [citation, valid(1)], None, source)
    monkeypatch.setattr(shapes, "adapted_in_general", lambda *args, **kwargs: pytest.fail("read the long way"))
    assert outcome(adapt_answer, [citation, valid(1)], no_hooks(), source) == expected


@pytest.mark.parametrize(
    ("citation", "message"),
    [
        (valid(0, qoute="x"), "citation 'c0', field 'qoute': 'qoute': did you mean 'quote'?"),
        (valid(0, id=True), "citation '#1', field 'id': must be a non-empty string or int, got True"),
        (valid(0, claim=3), "citation 'c0', field 'claim': must be a string, got int"),
        (valid(0, quote="  "), "field 'quote': is empty or whitespace"),
        (valid(0, section=4.10), "never a float"),
        ({"id": "c0", "claim": "One thing."}, "field 'section': is missing"),
    ],
)
def test_a_bad_plain_dict_keeps_its_error(citation: dict[str, Any], message: str) -> None:
    with pytest.raises(CitationInputError, match=None) as raised:
        adapt.adapt_citations([valid(1), citation], no_hooks())
    assert message in str(raised.value)
    adapted = adapt_answer([valid(1), citation], no_hooks())
    assert [c.id for c in adapted.citations] == ["c1", raised.value.citation]
    assert message in str(adapted.invalid[str(raised.value.citation)])


class Adapter:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, int]] = []

    @pluggy.HookimplMarker("pytest")
    def pytest_citecheck_adapt_citation(self, citation: Any, position: int) -> Any:
        self.calls.append((citation, position))
        return {**citation, "claim": "Adapted."} if position == 1 else None


def test_a_registered_adapter_is_called_for_every_citation() -> None:
    manager = pluggy.PluginManager("pytest")
    manager.add_hookspecs(hookspecs)
    manager.register(adapter := Adapter())
    citations = [valid(0), valid(1), valid(2)]
    adapted = adapt_answer(citations, manager.hook)
    assert adapter.calls == [(citation, position) for position, citation in enumerate(citations)]
    assert [c.claim for c in adapted.citations] == ["One thing.", "Adapted.", "One thing."]
    manager.unregister(adapter)
    assert [c.claim for c in adapt_answer(citations, manager.hook).citations] == ["One thing."] * 3


def test_hooks_that_cannot_say_what_is_registered_are_called() -> None:
    calls: list[int] = []

    def adapt_citation(citation: Any, position: int) -> Any:
        calls.append(position)
        return None

    hooks = SimpleNamespace(pytest_citecheck_adapt_citation=adapt_citation)
    assert len(adapt_answer([valid(0), valid(1)], hooks).citations) == 2
    assert calls == [0, 1]

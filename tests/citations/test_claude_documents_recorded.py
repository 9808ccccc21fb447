"""Claude's three document citation kinds, as Claude returned them over known documents (issue 23,
found 1 and 2, and Claude's streams).

The answers under ``tests/data/payloads/claude_*_grass.*`` and ``claude_pdf_page_answer.json`` were
recorded from the Messages API by another project's test suite, together with the documents its tests
sent (the README there says where): a plain-text document ("The grass is green. The sky is blue.",
``char_location``), the same two sentences as a custom-content document of two blocks
(``content_block_location``), a PDF (``page_location``), and the plain-text answer streamed as
server-sent events. Each is read through the ``anthropic`` SDK's own classes; the stream through the
SDK's ``messages.stream(...)`` and its accumulated final message, served by an HTTP mock transport.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from anthropic.types import Message
from support import recorded_claude_stream_client

from pytest_citecheck import Source, Status
from pytest_citecheck._citations.adapt import adapt_answer
from pytest_citecheck._locate.citations import Located, locate_all
from pytest_citecheck._options import Settings
from pytest_citecheck.testing import JevServer

PAYLOADS = Path(__file__).resolve().parent.parent / "data" / "payloads"
SENT = "The grass is green. The sky is blue."  # the plain-text document both recordings cite
CLAIMS = [("the grass is green", "The grass is green. "), ("the sky is blue", "The sky is blue.")]


def recorded(name: str) -> Message:
    return Message.model_validate(json.loads((PAYLOADS / name).read_text(encoding="utf-8")))


def sentences() -> Source:
    """The document as the app sent it, each sentence a section, so the offsets must name the right one."""
    return Source(sections={"grass": "The grass is green.", "sky": "The sky is blue."}, text=SENT)


def streamed() -> Message:
    """The recorded event stream through anthropic's own streaming client: what ``get_final_message()`` gives."""
    client = recorded_claude_stream_client("claude_stream_text_document_grass.sse")
    document: Any = {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": SENT}}
    with warnings.catch_warnings():  # the SDK warns of each model it lists as retiring: not this test's concern
        warnings.simplefilter("ignore", DeprecationWarning)
        manager = client.messages.stream(
            model="claude-haiku-4-5",  # what the request names; the answer is the recorded one
            max_tokens=64,
            messages=[
                {"role": "user", "content": [document, {"type": "text", "text": "What color is the grass and sky?"}]}
            ],
        )
    with manager as stream:
        return stream.get_final_message()


def located(message: Message, source: Source) -> list[tuple[str, str, Status, str | None]]:
    adapted = adapt_answer(message, source=source)
    # Claude cut "According to the documents, the grass is green and the sky is blue." into blocks at
    # its citations; the sentence is cited, so nothing is left for require_cited_sentences to list.
    assert adapted.invalid == {} and adapted.uncited == []
    results = locate_all(adapted.citations, source, Settings())
    assert all(isinstance(result, Located) for result in results)
    return [
        (citation.claim, citation.quote, result.status, result.section)  # type: ignore[union-attr]
        for citation, result in zip(adapted.citations, results)
    ]


def test_char_location_offsets_name_the_sentence_each_claim_cites() -> None:
    assert located(recorded("claude_text_document_grass.json"), sentences()) == [
        (claim, quote, Status.FOUND, section) for (claim, quote), section in zip(CLAIMS, ["grass", "sky"])
    ]


def test_the_streamed_answer_gives_the_same_citations_as_the_whole_one() -> None:
    message = streamed()
    assert [block.type for block in message.content] == ["text", "text", "text"]
    # The streamed blocks are whole sentences ("The grass is green."), the cited spans the same as above.
    assert [
        (claim.rstrip("."), quote, status, section) for claim, quote, status, section in located(message, sentences())
    ] == [
        (claim.capitalize(), quote, Status.FOUND, section) for (claim, quote), section in zip(CLAIMS, ["grass", "sky"])
    ]


def test_offsets_swapped_between_the_two_citations_are_found_elsewhere() -> None:
    """The same recording with each citation's offsets pointing at the other sentence: the quotes are in
    the document, but not where the model said, so neither stands as ``found``."""
    data = json.loads((PAYLOADS / "claude_text_document_grass.json").read_text(encoding="utf-8"))
    first, second = data["content"][1]["citations"][0], data["content"][3]["citations"][0]
    for key in ("start_char_index", "end_char_index"):
        first[key], second[key] = second[key], first[key]
    statuses = [status for *_, status, _section in located(Message.model_validate(data), sentences())]
    assert statuses == [Status.FOUND_ELSEWHERE, Status.FOUND_ELSEWHERE]


def test_content_block_location_end_index_is_exclusive_so_each_cites_one_block() -> None:
    document: Any = {
        "type": "document",
        "source": {
            "type": "content",
            "content": [{"type": "text", "text": "The grass is green."}, {"type": "text", "text": "The sky is blue."}],
        },
        "citations": {"enabled": True},
    }
    source = Source.from_blocks(document, ids=["grass", "sky"], name="chunks")
    adapted = adapt_answer(recorded("claude_content_blocks_grass.json"), source=source)
    assert [citation.section for citation in adapted.citations] == ["grass", "sky"]
    assert [
        (result.status, result.section)  # type: ignore[union-attr]
        for result in locate_all(adapted.citations, source, Settings())
    ] == [(Status.FOUND, "grass"), (Status.FOUND, "sky")]


def test_page_location_of_page_one_is_found_on_page_one_and_the_aside_cites_nothing() -> None:
    quote = "The Answer to the Ultimate Question of Life, the Universe, and Everything is 42."
    # The PDF's pages as a loader gives them (the recording's PDF held this sentence on its first page).
    pages = Source(sections={"page 1": quote, "page 2": "Deep Thought computed it over 7.5 million years."})
    message = recorded("claude_pdf_page_answer.json")
    adapted = adapt_answer(message, source=pages)
    [citation] = adapted.citations
    assert (citation.claim, citation.quote, citation.section) == (quote, quote, "page 1")
    [result] = locate_all(adapted.citations, pages, Settings())
    assert (result.status, result.section) == (Status.FOUND, "page 1")  # type: ignore[union-attr]
    # The uncited paragraph about Douglas Adams is what require_cited_sentences would list.
    assert adapted.uncited and adapted.uncited[0].startswith("This is a famous reference from Douglas Adams")


@pytest.mark.parametrize("name", ["claude_text_document_grass.json", "stream"])
def test_the_recorded_answers_pass_a_whole_check(name: str, direct_checker: Any) -> None:
    message = streamed() if name == "stream" else recorded(name)
    server = JevServer().start()
    try:
        results = direct_checker(server).check(message, sentences())
        # Every sentence of the answer is cited, though Claude cut it into blocks at its citations.
        direct_checker(server).assert_supported(message, sentences(), require_cited_sentences=True)
    finally:
        server.stop()
    assert [(r.status, r.section) for r in results] == [(Status.FOUND, "grass"), (Status.FOUND, "sky")]


@pytest.mark.parametrize(
    ("offsets", "field"),
    [((500, 520), "start_char_index"), ((20, 520), "end_char_index")],
    ids=["both-past-the-end", "end-past-the-end"],
)
def test_char_location_offsets_past_the_document_sent_are_invalid(offsets: tuple[int, int], field: str) -> None:
    """The recording with the second citation's offsets past the end of the 36 characters the request sent:
    the offsets were ignored and the quote, found anywhere, came out ``found``. Offsets that cannot be in
    the document mean the check's source is not what the request sent: ``invalid``, naming the field; the
    other citation is still read. A source whose text is only its sections joined (no ``text=``) cannot
    place offsets past its end either: ``invalid`` too, saying no text was given (it was read as if the
    offsets were not there, and the quote found anywhere passed)."""
    data = json.loads((PAYLOADS / "claude_text_document_grass.json").read_text(encoding="utf-8"))
    second = data["content"][3]["citations"][0]
    second["start_char_index"], second["end_char_index"] = offsets
    message = Message.model_validate(data)
    for source in (sentences(), Source(sections={"both": SENT}, text=SENT, name="grass.txt")):
        adapted = adapt_answer(message, source=source)
        assert [citation.id for citation in adapted.citations] == ["#1.1", "#3.1"]
        assert list(adapted.invalid) == ["#3.1"]
        error = adapted.invalid["#3.1"]
        assert (error.citation, error.field) == ("#3.1", field)
        assert f"start_char_index {offsets[0]} and end_char_index {offsets[1]} pass the end of the document" in str(
            error
        )
        # Its length and name in one aside (was "checked, (48 characters) (grass.txt):", a stray comma).
        named = ", grass.txt" if source.name else ""
        assert f"pass the end of the document checked ({len(SENT)} characters{named}): check against" in str(error)
    joined = Source(sections={"grass": "The grass is green.", "sky": "The sky is blue."})
    error = adapt_answer(message, source=joined).invalid["#3.1"]
    assert (error.citation, error.field) == ("#3.1", field)
    assert "its sections joined (37 characters), as no text of it was given" in str(error)
    assert "Source(sections=..., text=<the text sent>)" in str(error)


def test_char_location_past_the_end_of_a_real_document_given_as_sections_is_invalid() -> None:
    """A real document (tests/data/apache-2.0.txt, Debian's /usr/share/common-licenses/Apache-2.0) given
    as its sections only, cited by anthropic's own ``CitationCharLocation``: within the sections joined
    the citation is read; past their end it is ``invalid`` naming the field, as for a source given its text."""
    from anthropic.types import CitationCharLocation, TextBlock

    text = (Path(__file__).resolve().parent.parent / "data" / "apache-2.0.txt").read_text(encoding="utf-8")
    joined = Source(sections=dict(Source.from_text(text, format="numbered").sections), name="Apache-2.0")
    assert joined.original_is_joined
    quote = "Grant of Copyright License."
    at = joined.original.find(quote)  # type: ignore[union-attr]
    assert at > 0

    def block(start: int, end: int) -> TextBlock:
        cite = CitationCharLocation(
            type="char_location",
            cited_text=quote,
            document_index=0,
            document_title=None,
            file_id=None,
            start_char_index=start,
            end_char_index=end,
        )
        return TextBlock(type="text", text="Contributors grant a copyright licence.", citations=[cite])

    inside = adapt_answer(block(at, at + len(quote)), source=joined)
    assert inside.invalid == {}
    [result] = locate_all(inside.citations, joined, Settings())
    assert result.status == Status.FOUND  # type: ignore[union-attr]
    length = len(joined.original or "")
    for start, end, field in [(length + 10, length + 37, "start_char_index"), (at, length + 5000, "end_char_index")]:
        error = adapt_answer(block(start, end), source=joined).invalid["#0.1"]
        assert (error.citation, error.field) == ("#0.1", field)
        assert f"checked, its sections joined ({length} characters, Apache-2.0), as no text of it was given" in str(
            error
        )


def test_a_cited_text_whose_trailing_space_runs_past_the_document_is_read() -> None:
    """Claude's first citation is "The grass is green. " at [0, 20): checked against the sentence alone
    (19 characters, the document without its last sentence and the space before it), only the space runs
    past the end, and the citation is read as it was."""
    source = Source(sections={"grass": "The grass is green."}, text="The grass is green.")
    adapted = adapt_answer(recorded("claude_text_document_grass.json").content[1], source=source)
    assert adapted.invalid == {}
    [result] = locate_all(adapted.citations, source, Settings())
    assert result.status == Status.FOUND  # type: ignore[union-attr]

"""Claude's ``content_block_location`` names the blocks of the custom-content document the app sent
(issue 23, found 2): against ``Source.from_blocks`` of that content, one block cites its section, and
a quote found in another block is ``found-elsewhere``, naming both, as ``char_location`` already is.

The app here sends RFC 7519 as a custom-content document, one block per section; Claude's answers are
the ``anthropic`` SDK's own ``Message`` objects, validated from the JSON the API returns.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest
from anthropic.types import DocumentBlockParam, Message

from pytest_citecheck import CitecheckError, Corpus, Source, SourceError, Status
from pytest_citecheck.testing import JevServer

RFC = Path(__file__).resolve().parents[2] / "examples" / "rfc7519" / "rfc7519.txt"


@pytest.fixture(scope="module")
def rfc() -> Source:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Source.from_file(RFC)


@pytest.fixture(scope="module")
def sent(rfc: Source) -> tuple[DocumentBlockParam, Source]:
    """The document the app sent (one text block per RFC section) and the source built from it."""
    document: DocumentBlockParam = {
        "type": "document",
        "source": {"type": "content", "content": [{"type": "text", "text": rfc.sections[s]} for s in rfc.sections]},
        "title": "RFC 7519",
        "citations": {"enabled": True},
    }
    return document, Source.from_blocks(document, ids=list(rfc.sections), name="rfc7519")


def answer(text: str, cited: str, start: int, end: int) -> Message:
    return Message.model_validate(
        {
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [
                {
                    "type": "text",
                    "text": text,
                    "citations": [
                        {
                            "type": "content_block_location",
                            "cited_text": cited,
                            "document_index": 0,
                            "document_title": "RFC 7519",
                            "start_block_index": start,
                            "end_block_index": end,
                        }
                    ],
                }
            ],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 9000, "output_tokens": 40},
        }
    )


def block_of(rfc: Source, section: str) -> int:
    return list(rfc.sections).index(section)


def test_a_block_index_names_its_section_and_a_quote_elsewhere_is_found_elsewhere(
    rfc: Source, sent: tuple[DocumentBlockParam, Source], direct_checker: Any, jev_server: JevServer
) -> None:
    _, source = sent
    aud = block_of(rfc, "4.1.3")
    quote = "the JWT MUST NOT be accepted for processing"  # section 4.1.4, cited as block 4.1.3
    [result] = direct_checker(jev_server).check(answer("Expired tokens are refused.", quote, aud, aud + 1), source)
    assert (result.status, result.cited_section, result.section) == (Status.FOUND_ELSEWHERE, "4.1.3", "4.1.4")
    [request] = jev_server.systemone_requests
    assert request.body["state"]["section"] == rfc.sections["4.1.4"]  # Jev judges where the quote is


def test_a_sentence_in_many_sections_is_in_the_block_cited(
    rfc: Source, sent: tuple[DocumentBlockParam, Source], direct_checker: Any, jev_server: JevServer
) -> None:
    _, source = sent
    exp = block_of(rfc, "4.1.4")
    sentence = "Use of this claim is OPTIONAL."  # in 4.1.1 to 4.1.7: only the block says which
    [result] = direct_checker(jev_server).check(answer("The exp claim is optional.", sentence, exp, exp + 1), source)
    assert (result.status, result.section, result.cited_section) == (Status.FOUND, "4.1.4", "4.1.4")


def test_a_block_range_is_judged_against_its_blocks_run_together(
    rfc: Source, sent: tuple[DocumentBlockParam, Source], direct_checker: Any, jev_server: JevServer
) -> None:
    _, source = sent
    first = block_of(rfc, "4.1.3")
    cited = rfc.sections["4.1.3"] + rfc.sections["4.1.4"]  # Claude's cited_text: the blocks concatenated
    message = answer("The aud and exp claims constrain who may accept a JWT, and until when.", cited, first, first + 2)
    [result] = direct_checker(jev_server).check(message, source)
    assert (result.status, result.sections) == (Status.SECTION_ONLY, ("4.1.3", "4.1.4"))
    [request] = jev_server.systemone_requests
    assert "[section 4.1.3]" in request.body["state"]["section"]
    assert "[section 4.1.4]" in request.body["state"]["section"]


def test_a_block_index_beyond_the_document_names_the_field(
    rfc: Source, sent: tuple[DocumentBlockParam, Source], direct_checker: Any
) -> None:
    _, source = sent
    beyond = len(rfc.sections)
    with pytest.raises(
        CitecheckError, match=r"field 'end_block_index'.*has \d+ blocks: check against Source\.from_blocks"
    ):
        direct_checker().check(answer("A claim.", "the JWT MUST NOT be accepted", beyond, beyond + 1), source)


def test_from_blocks_reads_the_content_as_sent_and_refuses_what_is_not() -> None:
    plain = Source.from_blocks(
        ["One block of text.", {"type": "image", "source": {}}, {"type": "text", "text": "Two."}]
    )
    assert dict(plain.sections) == {"block 0": "One block of text.", "block 2": "Two."}
    assert plain.blocks == ("block 0", None, "block 2")
    source = Source.from_blocks({"type": "content", "content": "All of it."})
    assert source.blocks == ("block 0",)
    with pytest.raises(SourceError, match="ids has 1 names for 2 blocks"):
        Source.from_blocks(["a", "b"], ids=["only"])
    with pytest.raises(SourceError, match="repeated: 'x'"):
        Source.from_blocks(["a", "b"], ids=["x", "x"])
    with pytest.raises(SourceError, match="custom-content document"):
        Source.from_blocks({"type": "text", "text": "plain"})
    with pytest.raises(SourceError, match="block 1's text must be a string"):
        Source.from_blocks(["a", {"type": "text", "text": 3}])


def test_a_source_not_built_from_blocks_keeps_looking_in_the_whole_document(
    rfc: Source, direct_checker: Any, jev_server: JevServer
) -> None:
    quote = "the JWT MUST NOT be accepted for processing"
    [result] = direct_checker(jev_server).check(answer("Expired tokens are refused.", quote, 0, 1), rfc)
    assert (result.status, result.section) == (Status.FOUND, "4.1.4")


def test_in_a_corpus_a_block_range_is_judged_against_its_documents_blocks(
    rfc: Source, sent: tuple[DocumentBlockParam, Source], direct_checker: Any, jev_server: JevServer
) -> None:
    _, source = sent
    corpus = Corpus({"RFC 7519": source, "notes": Source.from_blocks(["The aud claim is optional."])})
    first = block_of(rfc, "4.1.3")
    cited = rfc.sections["4.1.3"] + rfc.sections["4.1.4"]
    message = answer("The aud and exp claims constrain who may accept a JWT, and until when.", cited, first, first + 2)
    [result] = direct_checker(jev_server).check(message, corpus)
    assert (result.status, result.document, result.sections) == (Status.SECTION_ONLY, "RFC 7519", ("4.1.3", "4.1.4"))


def test_an_assembly_in_a_corpus_without_its_document_is_still_refused(direct_checker: Any) -> None:
    corpus = Corpus({"a": Source.from_blocks(["First block of text here.", "Second block of text here."])})
    citation = {"id": "c", "claim": "A claim.", "quote": None, "section": ["block 0", "block 1"]}
    with pytest.raises(CitecheckError, match="field 'section'.*name the document"):
        direct_checker().check([citation], corpus)


def check_range(checker: Any, source: Source, text: str, cited: str, start: int, end: int, **options: Any) -> Any:
    [result] = checker.check(answer(text, cited, start, end), source, **options)
    return result


def test_a_quote_outside_its_block_range_is_found_elsewhere_naming_both(
    rfc: Source, sent: tuple[DocumentBlockParam, Source], direct_checker: Any, jev_server: JevServer
) -> None:
    _, source = sent
    first = block_of(rfc, "4.1.3")
    quote = 'The "nbf" (not before) claim identifies the time before which the JWT'  # 4.1.5, cited 4.1.3-4.1.4
    message = answer("A JWT is not valid before its nbf time.", quote, first, first + 2)
    checker = direct_checker(jev_server)
    [result] = checker.check(message, source)
    assert (result.status, result.cited_section) == (Status.FOUND_ELSEWHERE, "4.1.3 + 4.1.4")
    assert "4.1.5" in result.sections
    with pytest.raises(AssertionError, match=r"cited §4\.1\.3 \+ §4\.1\.4, the quote is in §4\.1\.5"):
        checker.assert_supported(message, source, misattributed="fail")


def test_a_quote_in_one_block_of_its_range_is_found_there_not_where_the_document_says_it_first(
    rfc: Source, sent: tuple[DocumentBlockParam, Source], direct_checker: Any, jev_server: JevServer
) -> None:
    _, source = sent
    first = block_of(rfc, "4.1.5")
    quote = "the JWT MUST NOT be accepted for processing"  # in 4.1.4 first, and in 4.1.5 (cited: 4.1.5-4.1.6)
    result = check_range(direct_checker(jev_server), source, "Early tokens are refused.", quote, first, first + 2)
    assert (result.status, result.sections) == (Status.FOUND, ("4.1.5", "4.1.6"))
    [request] = jev_server.systemone_requests
    assert rfc.sections["4.1.4"] not in request.body["state"]["section"]


def test_a_quote_running_across_two_blocks_of_its_range_is_found(
    rfc: Source, sent: tuple[DocumentBlockParam, Source], direct_checker: Any, jev_server: JevServer
) -> None:
    _, source = sent
    first = block_of(rfc, "4.1.3")
    # The end of 4.1.3 and the start of 4.1.4, as Claude runs the blocks of a range together.
    quote = 'interpretation of audience values is generally application specific.\n   Use of this claim is OPTIONAL.4.1.4.  "exp" (Expiration Time) Claim'
    result = check_range(direct_checker(jev_server), source, "The aud claim is optional.", quote, first, first + 2)
    assert (result.status, result.sections) == (Status.FOUND, ("4.1.3", "4.1.4"))
    [(start, end)] = result.spans
    assert result.section_text[start:end].startswith("interpretation of audience values")
    assert result.section_text[start:end].endswith('"exp" (Expiration Time) Claim')


def test_an_empty_cited_text_of_a_block_range_judges_the_claim_against_its_blocks(
    rfc: Source, sent: tuple[DocumentBlockParam, Source], direct_checker: Any, jev_server: JevServer
) -> None:
    _, source = sent
    first = block_of(rfc, "4.1.3")
    result = check_range(direct_checker(jev_server), source, "The aud claim is optional.", "", first, first + 2)
    assert (result.status, result.sections) == (Status.SECTION_ONLY, ("4.1.3", "4.1.4"))

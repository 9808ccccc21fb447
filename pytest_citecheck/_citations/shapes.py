"""Reading an answer of any shape into citations: each SDK's shapes, tried in order, and the adapt hook.

An LLM SDK's answer is read by its module here: ``anthropic`` (Messages API text blocks, a whole
``Message``), ``openai`` (Responses API ``output_text`` parts, a whole ``Response``),
``chat_completions``, ``cohere``, ``gemini``, ``langchain`` (an ``AIMessage`` and standard content
blocks), ``bedrock`` (Converse answers, read as Claude's; ``bedrock_stream`` assembles a
ConverseStream's events into one), ``bedrock_rag`` (Knowledge Bases' ``retrieve_and_generate``) and
``retrieval_answers`` (LlamaIndex ``Response``, Haystack ``GeneratedAnswer``), ``llamaindex_chat`` (a
LlamaIndex ``ChatResponse``); ``containers`` splits a whole answer into its parts. No SDK is imported:
``_SHAPES`` and ``_ANSWERS`` detect each shape by its fields, as Anthropic messages are. Any other shape
goes through the ``pytest_citecheck_adapt_citation`` hook first. ``adapt.adapt_answer`` comes here for
anything but a list of plain citation dicts, so a suite that passes only those never loads these modules.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pytest_citecheck._citations.anthropic import adapt_anthropic_block, is_anthropic_text_block, uncited_anthropic_text
from pytest_citecheck._citations.bedrock import (
    ConverseBlock,
    bedrock_text_block,
    converse_parts,
    is_bedrock_text_block,
    is_converse_answer,
)
from pytest_citecheck._citations.bedrock_rag import bedrock_rag_citations, is_bedrock_rag, refuse_rag_stream
from pytest_citecheck._citations.bedrock_stream import converse_stream_parts, is_converse_stream
from pytest_citecheck._citations.chat_completions import chat_completion_parts, is_chat_completion
from pytest_citecheck._citations.cohere import cohere_citations, is_cohere_response, uncited_cohere_text
from pytest_citecheck._citations.containers import UnreadBlock, citing_parts, is_answer, is_quiet_block
from pytest_citecheck._citations.coverage import Adapted
from pytest_citecheck._citations.gemini import gemini_citations, is_gemini_response, uncited_gemini_text
from pytest_citecheck._citations.gemini_stream import gemini_streams_joined
from pytest_citecheck._citations.langchain import (
    is_gemini_text_block,
    is_langchain_message,
    is_standard_text_block,
    langchain_parts,
    refuse_textless_citations,
    standard_part,
    standard_parts,
)
from pytest_citecheck._citations.llamaindex_chat import is_llamaindex_chat, llamaindex_chat_parts
from pytest_citecheck._citations.model import MISSING, Citation, field_of
from pytest_citecheck._citations.openai import is_openai_output_text, read_openai_output_text
from pytest_citecheck._citations.plain import adapt_citation, not_text
from pytest_citecheck._citations.resolving import resolved
from pytest_citecheck._citations.retrieval_answers import (
    haystack_citations,
    is_haystack_answer,
    is_llamaindex_response,
    llamaindex_citations,
)
from pytest_citecheck._citations.streamed import refuse_streamed_piece, streamed_piece
from pytest_citecheck._citations.web_fetch import fetched_pages_cited
from pytest_citecheck._dependencies import docs_url
from pytest_citecheck._errors import CitationInputError
from pytest_citecheck._sources.corpus import Corpus
from pytest_citecheck._sources.source import Source

# The SDK shapes read here, in the order they are tried: whether a part is one, how it becomes
# citations (with the sentences of its text that cite nothing), and whether the adapter named each
# citation's document itself (see ``_in_source``).
_Read = tuple[list[Citation], list[str], dict[str, CitationInputError]]
_Adapter = Callable[[Any, int, "Source | Corpus | None"], _Read]
# One part's reading, and whether an adapter (not the user) named its citations' documents.
_Part = tuple[list[Citation], list[str], dict[str, CitationInputError], bool]


def _anthropic(raw: Any, position: int, source: Source | Corpus | None) -> _Read:
    invalid: dict[str, CitationInputError] = {}  # one bad citation of a block never hides the others
    if isinstance(raw, ConverseBlock):
        raw.refuse_if_broken(position)  # a Bedrock block that could not be read: one invalid citation
    # Its uncited sentences are read with the blocks around it, in ``adapt_answer`` (``_Blocks``).
    citations = adapt_anthropic_block(raw, position, source, invalid)
    if isinstance(raw, ConverseBlock):  # a Bedrock block read as Claude's: its errors in Bedrock's terms
        invalid = raw.errors(invalid, position)
    return citations, [], invalid


def _openai(raw: Any, position: int, source: Source | Corpus | None) -> _Read:
    invalid: dict[str, CitationInputError] = {}  # one bad annotation of a part never hides the others
    return (*read_openai_output_text(raw, position, invalid=invalid), invalid)


def _cohere(raw: Any, position: int, source: Source | Corpus | None) -> _Read:
    invalid: dict[str, CitationInputError] = {}
    return cohere_citations(raw, position, invalid), uncited_cohere_text(raw), invalid


def _gemini(raw: Any, position: int, source: Source | Corpus | None) -> _Read:
    invalid: dict[str, CitationInputError] = {}
    return gemini_citations(raw, position, invalid, source), uncited_gemini_text(raw), invalid


def _bedrock_rag(raw: Any, position: int, source: Source | Corpus | None) -> _Read:
    invalid: dict[str, CitationInputError] = {}
    return (*bedrock_rag_citations(raw, position, invalid, source), invalid)


def _llamaindex(raw: Any, position: int, source: Source | Corpus | None) -> _Read:
    invalid: dict[str, CitationInputError] = {}
    return (*llamaindex_citations(raw, position, invalid), invalid)


def _haystack(raw: Any, position: int, source: Source | Corpus | None) -> _Read:
    invalid: dict[str, CitationInputError] = {}
    return (*haystack_citations(raw, position, invalid), invalid)


def _unread(raw: UnreadBlock, position: int, source: Source | Corpus | None) -> _Read:
    raise CitationInputError(
        f"is a {str(raw.kind)[:60]!r} block with citations, a kind of block this version of pytest-citecheck does "
        "not read (it reads the citations of text blocks): its citations cannot be checked, so they are not passed "
        "over; upgrade pytest-citecheck, or check its text blocks' citations and these another way",
        citation=f"#{position}",
        field=f"content[{raw.index}].citations",
    )


_SHAPES: tuple[tuple[Callable[[Any], bool], _Adapter, bool], ...] = (
    (is_anthropic_text_block, _anthropic, False),
    (is_openai_output_text, _openai, True),
    (is_cohere_response, _cohere, True),
    (is_gemini_response, _gemini, True),
    (is_bedrock_rag, _bedrock_rag, True),
    (is_llamaindex_response, _llamaindex, True),
    (is_haystack_answer, _haystack, True),
    (lambda raw: isinstance(raw, UnreadBlock), _unread, False),
)

# Whole answers split into the parts above: an Anthropic Message or OpenAI Response, a LangChain
# AIMessage (its standard content blocks), a LlamaIndex ChatResponse (``llamaindex_chat``), an OpenAI ChatCompletion, a Bedrock Converse response (or its
# message, or one content block: ``bedrock``); a text block with Bedrock's citations (LangChain's content of
# a Converse answer); and a standard content block
# alone, read as the provider's block it came from.
_ANSWERS: tuple[tuple[Callable[[Any], bool], Callable[[Any], list[Any]]], ...] = (
    (is_answer, citing_parts),
    (is_langchain_message, langchain_parts),
    (is_llamaindex_chat, llamaindex_chat_parts),
    (is_chat_completion, chat_completion_parts),
    (is_converse_answer, converse_parts),
    (is_bedrock_text_block, lambda block: [bedrock_text_block(block)]),
    (is_standard_text_block, lambda block: [standard_part(block)]),
)
# The whole answers of ``_ANSWERS`` (a check may be given one without a list around it).
_WHOLE_ANSWERS = _ANSWERS[:5]
# Answers read whole by one of ``_SHAPES`` (a check may be given one without a list around it).
_WHOLE = (is_cohere_response, is_gemini_response, is_bedrock_rag, is_llamaindex_response, is_haystack_answer)


def _expanded(raw: Any) -> list[Any]:
    """The parts of one item a check was given: a whole answer's parts, or the item itself."""
    for is_shape, parts in _ANSWERS:
        if is_shape(raw):
            return parts(raw)
    return [raw]


def adapted_in_general(citations: Any, hooks: Any = None, *, source: Source | Corpus | None = None) -> Adapted:
    """``adapt_answer`` for whatever a check was given: every part, every shape, the hook for each part."""
    adapted: list[Citation] = []
    uncited: list[str] = []
    invalid: dict[str, CitationInputError] = {}
    # Citations whose document an adapter read from an SDK object or a chunk's metadata (a file name,
    # a path), rather than one the user wrote in a dict: see ``_in_source``.
    named_by_adapter: set[int] = set()
    blocks: list[Any] = []  # the run of Anthropic text blocks read so far: one answer's text
    taken = _Taken()
    for position, raw in enumerate(_parts(citations)):
        if hooks is not None:
            converted = hooks.pytest_citecheck_adapt_citation(citation=raw, position=position)
            raw = raw if converted is None else converted
        try:
            part = _adapt_part(raw, position, source)
            if is_gemini_response(raw):
                part = _numbered_on(raw, source, taken, part)
            from_raw, uncited_here, bad, by_adapter = part
        except CitationInputError as error:  # one bad citation never hides the others
            from_raw, uncited_here, bad, by_adapter = [_stand_in(raw, position, error)], [], {}, False
            bad[from_raw[0].id] = error
        from_raw = list(from_raw)
        for index, citation in enumerate(from_raw):
            not_written = not_text(citation, position)
            if not_written is not None:  # its text is written nowhere: the stand-in has only its name
                from_raw[index] = Citation(
                    id=not_written.citation or f"#{position}", claim="", quote=None, section=None
                )
                bad[from_raw[index].id] = not_written
        invalid.update(bad)
        if by_adapter:
            named_by_adapter.update(range(len(adapted), len(adapted) + len(from_raw)))
        adapted.extend(from_raw)
        taken.add(from_raw)
        if is_anthropic_text_block(raw):
            blocks.append(raw)
            continue
        uncited.extend(uncited_anthropic_text(blocks) + uncited_here)
        blocks = []
    uncited.extend(uncited_anthropic_text(blocks))
    return Adapted(resolved(adapted, named_by_adapter, source), uncited, invalid)


def _stand_in(raw: Any, position: int, error: CitationInputError) -> Citation:
    """What stands for a citation that could not be read: its id, and its claim when one can be read."""
    claim = next((value for name in ("claim", "text") if isinstance(value := field_of(raw, name), str)), "")
    return Citation(id=error.citation or f"#{position}", claim=claim, quote=None, section=None)


def _parts(citations: Any) -> list[Any]:
    """The citations a check was given, with each whole answer (a Message, a Response) split into its parts."""
    refuse_rag_stream(citations)
    if any(is_shape(citations) for is_shape, _ in _WHOLE_ANSWERS) or any(is_shape(citations) for is_shape in _WHOLE):
        citations = [citations]  # a whole answer, passed as it came back
    elif _is_model(citations) and any(is_shape(citations) for is_shape, *_ in _SHAPES[:2]):
        citations = [citations]  # one SDK part (a TextBlock, an output_text part) passed alone
    if isinstance(citations, (str, bytes, Mapping)) or not isinstance(citations, Iterable) or _is_model(citations):
        piece = streamed_piece(citations)
        if piece is not None:
            raise CitationInputError(
                f"citations must be an answer or a list of citations; got {piece}", field="citations"
            )
        raise CitationInputError(
            f"citations must be a list of citations, got {type(citations).__name__}"
            + (" (a single citation? wrap it in a list)" if isinstance(citations, Mapping) else "")
            + (
                ": an object read as no answer pytest-citecheck knows (see "
                + docs_url("sources", "citation-shapes")
                + ")"
                if _is_model(citations)
                else ""
            ),
            field="citations",
        )
    return _split(list(citations))


def _split(items: list[Any]) -> list[Any]:
    """The parts of a list a check was given: each item's, or a Bedrock ConverseStream's events (a Gemini
    stream's chunks) as the answer they make."""
    refuse_rag_stream(items)
    if is_converse_stream(items):
        return converse_stream_parts(items)
    items = gemini_streams_joined(items)  # a Gemini stream's chunks: the one response they make
    if any(is_standard_text_block(raw) for raw in items):  # a LangChain message's content or content_blocks
        refuse_textless_citations(items, "citations")
    parts: list[Any] = []
    for raw in _gemini_blocks_together(items):
        parts.extend(_expanded(raw))
    # Claude's citations of pages its web fetch tool fetched: by their URLs. The blocks of a message's content
    # that cite nothing (thinking, tool use, a tool's result) are passed over, as in the whole message.
    return [part for part in fetched_pages_cited(parts) if not is_quiet_block(part)]


def _gemini_blocks_together(items: list[Any]) -> list[Any]:
    """A LangChain ``content_blocks`` list of a Gemini answer with its text blocks read together, as an
    ``AIMessage``'s are (``standard_parts``): the whole answer's text in place of the first text block."""
    if not any(is_gemini_text_block(raw) for raw in items):
        return items
    texts = [
        index
        for index, raw in enumerate(items)
        if field_of(raw, "type") == "text"
        and field_of(raw, "citations") is MISSING
        and field_of(raw, "claim") is MISSING
    ]
    together: list[Any] = []
    for index, raw in enumerate(items):
        if index == texts[0]:
            together.extend(standard_parts([items[text] for text in texts]))
        elif index not in texts:
            together.append(raw)
    return together


def _is_model(raw: Any) -> bool:
    """A pydantic model (an SDK's response object): iterable, but over its fields, never over citations."""
    return hasattr(type(raw), "model_fields") and hasattr(raw, "model_dump")


def _adapt_part(raw: Any, position: int, source: Source | Corpus | None) -> _Part:
    """The citations of one part, its uncited sentences, and whether an adapter (not the user) named their documents."""
    refuse_streamed_piece(raw, position)  # a streamed event or chunk is no answer: say what to pass instead
    for is_shape, adapt, names_documents in _SHAPES:
        if is_shape(raw):
            return (*adapt(raw, position, source), names_documents)
    # A ``Citation`` comes from citations_from_markers or citations_from_openai.
    return [adapt_citation(raw, position)], [], {}, isinstance(raw, Citation)


_NUMBERED = re.compile(r"#([0-9]+)\.")


class _Taken:
    """The ids read so far, and the highest number one starts with (``#<n>.``)."""

    def __init__(self) -> None:
        self.ids: set[str] = set()
        self.highest = -1

    def add(self, citations: list[Citation]) -> None:
        for citation in citations:
            self.ids.add(citation.id)
            numbered = _NUMBERED.match(citation.id)
            if numbered is not None:
                self.highest = max(self.highest, int(numbered[1]))


def _numbered_on(raw: Any, source: Source | Corpus | None, taken: _Taken, part: _Part) -> _Part:
    """A Gemini response whose ids (``#<position + candidate>.…``) would repeat an earlier part's (two responses
    of several candidates each) numbered on past every number an id so far starts with, so none can repeat
    one; any other kept as it was read, so the ids of every answer read before stay the same (reviews and
    reports name citations by id)."""
    if not any(citation.id in taken.ids for citation in part[0]):
        return part
    return _adapt_part(raw, taken.highest + 1, source)

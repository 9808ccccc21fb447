"""Amazon Bedrock Converse answers: their ``citationsContent`` blocks, read as the Claude citations they carry.

A Converse response (boto3's ``converse()`` dict, or its ``output.message``, or a list of its content
blocks) holds content blocks, each a dict with one key: ``text`` (text that cites nothing),
``citationsContent`` (generated text and the citations it rests on), ``reasoningContent``, ``toolUse``
and others that cite nothing. Bedrock's citation locations are Claude's, field for field (Bedrock passes
Claude's citations through; a recorded Converse answer citing page 1 of a PDF says ``start 1, end 2``):

- ``documentChar``  ``{documentIndex, start, end}``: Claude's ``char_location``, ``[start, end)``;
- ``documentPage``  ``{documentIndex, start, end}``: ``page_location``, pages ``[start, end)``, 1-based;
- ``documentChunk`` ``{documentIndex, start, end}``: ``content_block_location``, blocks ``[start, end)``;
- ``web`` ``{url, domain}``: ``web_search_result_location``;
- ``searchResultLocation`` ``{searchResultIndex, start, end}``: ``search_result_location``.

So each ``citationsContent`` block becomes an Anthropic text block (its ``content`` texts the claim, each
citation's ``sourceContent`` texts its quote, ``title`` the document's title) and ``anthropic`` reads it: one
reading of places, pages and documents for both. Bedrock's API reference does not say whether ``end`` is
inclusive. Read as exclusive (Claude's), a page range can only be narrower than meant, never wider: a quote
from a page next to the cited ones fails as ``found-elsewhere``, it never passes. An ``end`` equal to its
``start`` (an inclusive reading of one page or block) cites that page or block. The errors name Bedrock's
fields (``location.documentPage.start``), not Claude's.

LangChain carries the same citations: ``ChatBedrockConverse``'s ``AIMessage`` has text blocks whose
``citations`` are Bedrock's with their keys in snake case (``source_content``, ``document_page``), and its
``content_blocks`` (``model_provider == "bedrock_converse"``) translate each into a standard ``citation``
whose ``cited_text`` is the passage and whose ``extras["location"]`` is Bedrock's location. Both are read
here (``bedrock_text_block``, ``standard_bedrock_block``), so the place a citation names is never lost.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_citecheck._errors import CitationInputError

# Every member of Bedrock's ``ContentBlock`` union (botocore's bedrock-runtime 2023-09-30 model). A block
# of any other kind is an error: it might carry citations this version would not read.
_QUIET_BLOCKS = frozenset(
    {
        "image",
        "document",
        "video",
        "audio",
        "toolUse",
        "toolResult",
        "guardContent",
        "cachePoint",
        "reasoningContent",  # the model's reasoning: no answer text, and Bedrock cites none of it
        "searchResult",
        "toolAddition",
        "toolRemoval",
    }
)
_BLOCKS = _QUIET_BLOCKS | {"text", "citationsContent"}

# A Bedrock location: its Claude citation type, and Claude's name for each of its fields.
_LOCATIONS: dict[str, tuple[str, dict[str, str]]] = {
    "documentChar": (
        "char_location",
        {"documentIndex": "document_index", "start": "start_char_index", "end": "end_char_index"},
    ),
    "documentPage": (
        "page_location",
        {"documentIndex": "document_index", "start": "start_page_number", "end": "end_page_number"},
    ),
    "documentChunk": (
        "content_block_location",
        {"documentIndex": "document_index", "start": "start_block_index", "end": "end_block_index"},
    ),
    "web": ("web_search_result_location", {"url": "url"}),
    "searchResultLocation": (
        "search_result_location",
        {"searchResultIndex": "search_result_index", "start": "start_block_index", "end": "end_block_index"},
    ),
}
# Every key ``_camel_name`` may turn into ``sourceContent`` (and some it does not: ``_camel_name`` decides).
_SOURCE_CONTENT_SPELLING = re.compile(r"_*[sS]ource_+[cC]ontent_*")
# Ranges whose end may equal their start in an inclusive reading of one page or block (see the docstring).
_RANGE_ENDS = {"documentPage", "documentChunk", "searchResultLocation"}


class ConverseBlock(dict[str, Any]):
    """A ``citationsContent`` block as an Anthropic text block. ``bedrock_fields`` names each Claude field of
    citation ``number`` by Bedrock's path; ``unreadable`` holds the citations that could not be read as
    Claude's (each stands in as one the Anthropic reader refuses, so its place and id are kept). ``broken``
    is why the block itself could not be read (its ``citations`` no list, its ``content`` no text parts): it
    stands in as one invalid citation (``refuse_if_broken``), and the answer's other blocks are still read."""

    def __init__(
        self,
        block: Mapping[str, Any],
        bedrock_fields: dict[int, dict[str, str]],
        unreadable: dict[int, CitationInputError],
        broken: CitationInputError | None = None,
    ) -> None:
        super().__init__(block)
        self.bedrock_fields = bedrock_fields
        self.unreadable = unreadable
        self.broken = broken
        self.places: dict[int, str] = {}  # a streamed citation's event (``stream[5]...citation``), its fields' prefix

    def refuse_if_broken(self, position: int) -> None:
        """The error of a block that could not be read, naming it as the one citation ``#<position>``."""
        if self.broken is not None:
            raise CitationInputError(self.broken.message, citation=f"#{position}", field=self.broken.field)

    def errors(self, invalid: dict[str, CitationInputError], position: int) -> dict[str, CitationInputError]:
        """The Anthropic reader's errors for this block as a Bedrock user reads them: Bedrock's field names,
        and the reason a citation that could not be read as Claude's was not."""
        renamed = {citation_id: self._renamed(error) for citation_id, error in invalid.items()}
        for number, error in self.unreadable.items():
            citation_id = f"#{position}.{number}"
            field = self._placed(number, error.field)
            renamed[citation_id] = CitationInputError(error.message, citation=citation_id, field=field)
        return renamed

    def _renamed(self, error: CitationInputError) -> CitationInputError:
        number = error.citation.rsplit(".", 1)[1] if error.citation and "." in error.citation else ""
        names = self.bedrock_fields.get(int(number), {}) if number.isdigit() else {}
        if not names:
            return error
        pattern = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")
        message = pattern.sub(lambda match: names[match.group(1)], error.message)
        field = names.get(error.field, error.field) if error.field else error.field
        return type(error)(message, citation=error.citation, field=self._placed(int(number), field))

    def _placed(self, number: int, field: str | None) -> str | None:
        """A field of citation ``number`` as the path from the event it was streamed in, if it was."""
        place = self.places.get(number)
        if place is None:
            return field
        return place if field in (None, "citations") else f"{place}.{field}"  # ``citations``: the citation itself


def is_converse_answer(raw: Any) -> bool:
    """A Converse response (``{"output": {"message": ...}}``), its message, or one of its content blocks."""
    if not isinstance(raw, Mapping):
        return False
    output = raw.get("output")
    if isinstance(output, Mapping) and isinstance(output.get("message"), Mapping):
        return _is_message(output["message"])
    return _is_message(raw) or _is_block(raw)


def converse_parts(raw: Mapping[str, Any]) -> list[Any]:
    """The answer's text blocks, in order, each an Anthropic text block (see the module's docstring)."""
    output = raw.get("output")
    if isinstance(output, Mapping) and isinstance(output.get("message"), Mapping):
        raw = output["message"]
    blocks = raw["content"] if _is_message(raw) else [raw]
    parts: list[Any] = []
    for position, block in enumerate(blocks):
        ((kind, body),) = block.items()
        if kind == "text":
            parts.append({"type": "text", "text": body, "citations": None})
        elif kind == "citationsContent":
            parts.append(_citing_block(body, f"content[{position}].citationsContent"))
        elif kind not in _QUIET_BLOCKS:
            raise CitationInputError(
                f"is a {shown_members(block)} block, which this version does not know (it may carry citations it "
                "would not read): "
                f"the blocks it reads are {', '.join(sorted(_BLOCKS))}",
                field=f"content[{position}]",
            )
    return parts


def shown_members(union: Any) -> str:
    """A union's keys as an error shows them, or the type of what is no object. botocore gives a member it does
    not know (one Bedrock added after it) as ``{"SDK_UNKNOWN_MEMBER": {"name": ...}}``: shown by that name."""
    if not isinstance(union, Mapping):
        return type(union).__name__
    unknown = union.get("SDK_UNKNOWN_MEMBER")
    if isinstance(unknown, Mapping) and isinstance(unknown.get("name"), str):
        return f"{unknown['name']!r} (botocore's SDK_UNKNOWN_MEMBER: a member this botocore does not know)"
    return ", ".join(repr(str(key)) for key in sorted(union, key=str)) or "nothing"


def _is_message(raw: Mapping[str, Any]) -> bool:
    """An assistant message of Converse content blocks: each a dict of one key, one of them a known kind (a
    block of an unknown kind is then an error in ``converse_parts``, never an answer read as something else)."""
    content = raw.get("content")
    if raw.get("role") != "assistant" or not isinstance(content, Sequence) or isinstance(content, str) or not content:
        return False
    one_keyed = all(isinstance(block, Mapping) and len(block) == 1 and "type" not in block for block in content)
    return one_keyed and any(_is_block(block) for block in content)


def _is_block(raw: Any) -> bool:
    # One key, as every member of the union; an Anthropic or OpenAI block has ``type`` besides.
    return isinstance(raw, Mapping) and len(raw) == 1 and next(iter(raw)) in _BLOCKS


def _citing_block(body: Any, where: str) -> ConverseBlock:
    """A ``citationsContent`` block as an Anthropic text block with its citations; one that cannot be read is
    ``broken``, with its text when that can be read (the stand-in's claim)."""
    text = ""
    try:
        if not isinstance(body, Mapping):
            raise CitationInputError(f"must be an object, got {type(body).__name__}", field=where)
        text = _joined(body.get("content"), f"{where}.content")
        cited = body.get("citations")
        if not isinstance(cited, Sequence) or isinstance(cited, (str, bytes)):
            raise CitationInputError(
                f"must be a list of citations, got {type(cited).__name__}", field=f"{where}.citations"
            )
    except CitationInputError as error:  # one bad block never hides the answer's other citations
        return broken_block(text, error)
    return _block(text, cited)


def broken_block(text: str, error: CitationInputError) -> ConverseBlock:
    """A block that could not be read: one invalid citation (``ConverseBlock.refuse_if_broken``). Its text counts
    as cited (it meant to cite): the invalid citation fails it, not coverage."""
    return ConverseBlock({"type": "text", "text": text, "citations": [{"cited_text": ""}]}, {}, {}, error)


def streamed_block(text: str, cited: Sequence[tuple[str, Any]]) -> ConverseBlock:
    """A streamed block's text and its citations, each with the path of the event it came in (``bedrock_stream``):
    the ``citationsContent`` block ``converse()`` gives, its errors naming that event."""
    block = _block(text, [citation for _, citation in cited])
    block.places = {number: place for number, (place, _) in enumerate(cited, start=1)}
    return block


def _block(text: str, cited: Sequence[Any]) -> ConverseBlock:
    """Text and the Bedrock citations it rests on, as an Anthropic text block."""
    citations: list[Any] = []
    fields: dict[int, dict[str, str]] = {}
    unreadable: dict[int, CitationInputError] = {}
    for number, item in enumerate(cited, start=1):
        try:
            citation, fields[number] = _citation(item)
        except CitationInputError as error:  # one bad citation never hides the others
            citation, unreadable[number] = {"cited_text": ""}, error
        citations.append(citation)
    return ConverseBlock({"type": "text", "text": text, "citations": citations}, fields, unreadable)


def is_bedrock_citation(item: Any) -> bool:
    """A Bedrock citation (its keys in camel or, as LangChain gives them, snake case). Told by its keys as
    ``_camel`` names them and by its location's one key, walking and copying no value: LangChain's content is
    asked about every citation of every Claude text block (whose keys, ``cited_text`` and ``type``, are neither)."""
    if not isinstance(item, Mapping):
        return False
    # Only ``location`` itself is ``location`` camel-cased; ``sourceContent`` has other spellings (``source__content``):
    # the pattern narrows the keys to those before ``_camel_name`` decides, so a Claude citation costs no call of it.
    if "sourceContent" in item or "source_content" in item or _names_a_location(item.get("location")):
        return True
    spellings = (key for key in item if isinstance(key, str) and _SOURCE_CONTENT_SPELLING.fullmatch(key))
    return any(_camel_name(key) == "sourceContent" for key in spellings)


def is_bedrock_annotation(annotation: Any, field: Any) -> bool:
    """A LangChain standard ``citation`` translated from Bedrock's: its ``extras`` hold Bedrock's ``location``."""
    extras = field(annotation, "extras")
    return isinstance(extras, Mapping) and _names_a_location(extras.get("location"))


def _names_a_location(location: Any) -> bool:
    """A Bedrock ``location``: one key (as ``_camel`` names it) naming a kind of place; its body is not read."""
    if not isinstance(location, Mapping):
        return False
    names = {_camel_name(key) for key in location}  # two spellings of one key are one key once camel-cased
    return len(names) == 1 and next(iter(names)) in _LOCATIONS


def is_bedrock_text_block(raw: Any) -> bool:
    """A text block whose ``citations`` are Bedrock's (LangChain's ``AIMessage.content`` from ``ChatBedrockConverse``)."""
    cited = raw.get("citations") if isinstance(raw, Mapping) else None
    return (
        isinstance(raw, Mapping)
        and raw.get("type") == "text"
        and isinstance(raw.get("text"), str)
        and isinstance(cited, Sequence)
        and not isinstance(cited, (str, bytes))
        and any(is_bedrock_citation(item) for item in cited)
    )


def bedrock_text_block(raw: Mapping[str, Any]) -> ConverseBlock:
    """A text block with Bedrock citations as an Anthropic text block (see ``is_bedrock_text_block``)."""
    return _block(raw["text"], [_camel(item) for item in raw["citations"]])


def standard_bedrock_block(text: Any, cited: Sequence[Any]) -> ConverseBlock:
    """LangChain's standard text block of a Converse answer: ``cited`` is each annotation translated back to
    Bedrock's citation (``bedrock_citation``) or, one langchain-core could not translate, as it came."""
    if not isinstance(text, str):  # one invalid citation: the message's other blocks are still read
        return broken_block("", CitationInputError(f"must be a string, got {type(text).__name__}", field="text"))
    return _block(text, [_camel(item) for item in cited])


def bedrock_citation(annotation: Any, field: Any) -> dict[str, Any]:
    """A standard ``citation`` annotation of a Converse answer as Bedrock's citation: ``cited_text`` its
    passage, ``title`` its document, ``extras["location"]`` its place (``field`` reads an attribute or key)."""
    citation: dict[str, Any] = {}
    extras = field(annotation, "extras")
    if isinstance(extras, Mapping):
        citation.update(_camel(extras))
    cited_text = field(annotation, "cited_text")
    if isinstance(cited_text, str):
        citation["sourceContent"] = [{"text": cited_text}]
    title = field(annotation, "title")
    if isinstance(title, str):
        citation["title"] = title
    return citation


def _camel(value: Any) -> Any:
    """``value`` with every key of its mappings in camel case (``source_content`` -> ``sourceContent``)."""
    if isinstance(value, Mapping):
        return {_camel_name(key): _camel(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_camel(item) for item in value]
    return value


def _camel_name(key: Any) -> Any:
    if not isinstance(key, str) or "_" not in key.strip("_"):
        return key
    head, *rest = key.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _joined(pieces: Any, where: str) -> str:
    """The texts of a list of ``{"text": ...}`` (generated content, or the source content a citation quotes)."""
    if not isinstance(pieces, Sequence) or isinstance(pieces, (str, bytes)):
        raise CitationInputError(f"must be a list of {{'text': ...}}, got {type(pieces).__name__}", field=where)
    texts = [piece.get("text") if isinstance(piece, Mapping) else None for piece in pieces]
    if not all(isinstance(text, str) for text in texts):
        raise CitationInputError("must be a list of {'text': <a string>}", field=where)
    return "".join(texts)  # type: ignore[arg-type]


def _citation(item: Any) -> tuple[dict[str, Any], dict[str, str]]:
    """One Bedrock citation as a Claude citation, and Bedrock's path for each Claude field it has."""
    if not isinstance(item, Mapping):
        raise CitationInputError(f"must be an object, got {type(item).__name__}", field="citations")
    fields = {"cited_text": "sourceContent", "document_title": "title", "type": "location"}
    if "sourceContent" not in item:
        raise CitationInputError("is missing: a Bedrock citation carries the passage it cites", field="sourceContent")
    claude: dict[str, Any] = {"cited_text": _joined(item["sourceContent"], "sourceContent")}
    for name, claude_name in (("title", "document_title"), ("source", "source")):
        if name in item:
            claude[claude_name] = item[name]
    if item.get("location") is not None:
        claude["type"], located = _location(item["location"])
        claude.update(located)
        kind = next(iter(item["location"]))
        fields |= {claude_name: f"location.{kind}.{name}" for name, claude_name in _LOCATIONS[kind][1].items()}
    if claude.get("type") == "web_search_result_location" and "document_title" in claude:
        claude["title"] = claude.pop("document_title")  # a web result's title is a label, as Claude's
        fields["title"] = "title"
    return claude, fields


def _location(location: Any) -> tuple[str, dict[str, Any]]:
    """A Bedrock ``location`` (a union: one key) as a Claude citation type and its fields."""
    if not isinstance(location, Mapping) or len(location) != 1 or next(iter(location)) not in _LOCATIONS:
        raise CitationInputError(
            f"must hold one of {', '.join(_LOCATIONS)}, got {shown_members(location)}: the place a citation cites must be read, or a "
            "quote from elsewhere in the document would pass",
            field="location",
        )
    ((kind, body),) = location.items()
    claude_type, names = _LOCATIONS[kind]
    if not isinstance(body, Mapping):
        raise CitationInputError(f"must be an object, got {type(body).__name__}", field=f"location.{kind}")
    located = {names[name]: value for name, value in body.items() if name in names}
    start, end = body.get("start"), body.get("end")
    if kind in _RANGE_ENDS and isinstance(start, int) and start == end:
        located[names["end"]] = end + 1  # an inclusive end of one page or block: that page or block
    return claude_type, located

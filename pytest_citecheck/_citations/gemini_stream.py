"""Gemini's ``generate_content_stream`` chunks, passed as a list: joined into the one response they make.

Each chunk of a streamed Gemini answer is a ``GenerateContentResponse`` carrying one piece of each candidate's
text, and every chunk of one stream carries the same ``response_id`` (REST ``responseId``). The grounding
metadata comes in the last chunk (with ``finish_reason``), its supports naming segments of the whole answer:
a recorded stream (pydantic-ai's ``test_google_model_web_search_tool_stream`` cassette, gemini-2.5-pro) sends
``groundingMetadata: {}`` with each earlier piece and the supports, from ``startIndex`` 221 on, in the last.
Read chunk by chunk, the pieces before it were text that cited nothing (false "uncited" sentences under
``require_cited_sentences``) and the segments were looked for in the last piece alone. google-genai assembles no
stream, so the chunks of one ``response_id`` are joined here as the response ``generate_content`` gives: each
candidate's parts in order, the grounding and citation metadata of the chunk that has any, its
``finish_reason``. Fails closed: a stream whose candidate has no ``finish_reason`` (cut short), or whose
grounding or citation metadata comes in two chunks (resent or split: which segments it names is not known),
is refused whole, naming the chunk. google-genai is not imported.
"""

from __future__ import annotations

from typing import Any

from pytest_citecheck._citations.gemini import is_gemini_response
from pytest_citecheck._citations.model import MISSING, field_of
from pytest_citecheck._errors import CitationInputError

# Each candidate field taken from the one chunk that has it, by its SDK and REST spellings.
_METADATA = (("grounding_metadata", "groundingMetadata"), ("citation_metadata", "citationMetadata"))


def gemini_streams_joined(items: list[Any]) -> list[Any]:
    """``items`` with the chunks of each streamed Gemini response (two or more sharing a ``response_id``)
    joined into one response, at the place of its first chunk; everything else as it was."""
    groups: dict[str, list[int]] = {}
    for index, item in enumerate(items):
        response_id = _response_id(item)
        if response_id is not None:
            groups.setdefault(response_id, []).append(index)
    streams = {indices[0]: indices for indices in groups.values() if len(indices) > 1}
    if not streams:
        return items
    taken = {index for indices in streams.values() for index in indices}
    joined: list[Any] = []
    for index, item in enumerate(items):
        if index in streams:
            joined.append(_joined(items, streams[index]))
        elif index not in taken:
            joined.append(item)
    return joined


def _response_id(item: Any) -> str | None:
    if not is_gemini_response(item):
        return None
    value = field_of(item, "response_id")
    if value in (MISSING, None):
        value = field_of(item, "responseId")
    return value if isinstance(value, str) and value else None


def _joined(items: list[Any], indices: list[int]) -> dict[str, Any]:
    """One response of the chunks at ``indices`` (see the module's docstring)."""
    candidates: dict[int, dict[str, Any]] = {}
    said: dict[tuple[int, str], int] = {}  # (candidate, metadata field): the chunk that carried it
    for chunk_index in indices:
        for place, candidate in enumerate(field_of(items[chunk_index], "candidates") or ()):
            number = field_of(candidate, "index")
            number = number if isinstance(number, int) and not isinstance(number, bool) else place
            joined = candidates.setdefault(number, {"index": number, "content": {"role": "model", "parts": []}})
            parts = field_of(field_of(candidate, "content"), "parts")
            joined["content"]["parts"].extend(parts if isinstance(parts, (list, tuple)) else ())
            for snake, camel in _METADATA:
                value = _present(candidate, snake, camel)
                if value is None:
                    continue
                if (number, snake) in said:
                    raise CitationInputError(
                        f"holds {camel} as citations[{said[number, snake]}] (a chunk of the same streamed response) "
                        "does: which text each names is not known; check the answer of generate_content(...), "
                        "the same request not streamed",
                        citation=f"#{chunk_index}",
                        field=f"candidates[{place}].{snake}",
                    )
                said[number, snake] = chunk_index
                joined[snake] = value
            finish = _present(candidate, "finish_reason", "finishReason")
            if finish is not None:
                joined["finish_reason"] = finish
    for number, joined in candidates.items():
        if "finish_reason" not in joined:
            raise CitationInputError(
                f"the streamed response's candidate {number} has no chunk with a finish_reason: the stream was cut "
                "short, and its last chunk (which carries the grounding) may be missing; pass every chunk "
                "generate_content_stream yielded",
                citation=f"#{indices[-1]}",
                field="finish_reason",
            )
    return {"response_id": _response_id(items[indices[0]]), "candidates": [candidates[n] for n in sorted(candidates)]}


def _present(candidate: Any, snake: str, camel: str) -> Any:
    """A candidate's field by either spelling, None when absent or empty (a chunk's ``groundingMetadata: {}``)."""
    for name in (snake, camel):
        value = field_of(candidate, name)
        if value in (MISSING, None):
            continue
        dumped = value.model_dump(exclude_none=True) if hasattr(value, "model_dump") else value
        if dumped in ({}, [], ""):
            continue
        return value
    return None

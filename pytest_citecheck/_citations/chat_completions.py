"""OpenAI Chat Completions: a ``ChatCompletion`` whose message carries ``url_citation`` annotations.

Web search in Chat Completions returns ``choices[n].message.content`` and ``message.annotations``, each
``{"type": "url_citation", "url_citation": {"url", "title", "start_index", "end_index"}}``. Each choice's
message is read as a Responses API ``output_text`` part (``openai``): the claim is the text the
annotation annotates, the document is the URL. The ``openai`` package is never imported.

OpenAI-compatible providers answer in the same shape with their own ways of citing, which are refused
with what to pass, never read as an answer that cites nothing: Perplexity's top-level ``citations``
(URLs the text cites by ``[n]`` markers: ``citations_from_markers`` reads them), a message whose content
is a list of chunks (Mistral's text and reference chunks). A message with no ``annotations`` cites nothing.
"""

from __future__ import annotations

from typing import Any

from pytest_citecheck._citations.model import MISSING, field_of
from pytest_citecheck._errors import CitationInputError


def is_chat_completion(raw: Any) -> bool:
    """A whole ``ChatCompletion`` (``object == "chat.completion"``) or an assistant ``ChatCompletionMessage``."""
    if field_of(raw, "object") == "chat.completion" and isinstance(field_of(raw, "choices"), (list, tuple)):
        return True
    # The SDK's message has ``annotations=None`` when there are none: it is still an answer (citing nothing).
    annotations = field_of(raw, "annotations")
    return field_of(raw, "role") == "assistant" and (
        isinstance(annotations, (list, tuple)) or (annotations is None and isinstance(field_of(raw, "content"), str))
    )


def chat_completion_parts(raw: Any) -> list[dict[str, Any]]:
    """Each choice's message as an ``output_text`` part with its ``url_citation`` annotations."""
    if field_of(raw, "object") == "chat.completion":
        messages = [field_of(choice, "message") for choice in field_of(raw, "choices")]
        where = [f"choices[{index}].message" for index in range(len(messages))]
    else:
        messages, where = [raw], ["message"]
    parts = [
        _as_output_text(message, field)
        for message, field in zip(messages, where)
        if message is not MISSING and message is not None
    ]
    if not any(part["annotations"] for part in parts):
        _refuse_top_level_citations(raw)
    return parts


def _refuse_top_level_citations(raw: Any) -> None:
    """Perplexity's answer cites a top-level list of URLs by ``[n]`` markers in its text: not annotations,
    so read as a chat completion it would cite nothing (dropped beside other citations). Refused, naming
    the call that reads it."""
    cited = field_of(raw, "citations")
    if isinstance(cited, (list, tuple)) and cited:
        raise CitationInputError(
            f"is a list of {len(cited)} URLs that the answer's text cites by [n] markers (Perplexity's shape), "
            "not annotations of a chat completion, so none would be checked: pass "
            "citations_from_markers(response.choices[0].message.content, response.citations) instead "
            "(with a Corpus keyed by those URLs)",
            field="citations",
        )


def _as_output_text(message: Any, where: str) -> dict[str, Any]:
    text = field_of(message, "content")
    if isinstance(text, (list, tuple)):
        raise CitationInputError(
            f"is a list of {len(text)} content chunks, not the answer's text: an OpenAI chat completion's "
            "message content is a string; chunks (such as Mistral's text and reference chunks) are another "
            "provider's way of citing, which pytest-citecheck does not read: pass the citations as dicts",
            field=f"{where}.content",
        )
    found = field_of(message, "annotations")
    if found is MISSING or found is None:  # another provider's message: no annotations, so it cites nothing
        found = []
    if not isinstance(found, (list, tuple)):
        # The Responses reader names the field: "must be a list of annotations".
        return {"type": "output_text", "text": text if isinstance(text, str) else "", "annotations": found}
    annotations = []
    for annotation in found:
        if field_of(annotation, "type") != "url_citation":
            # Read as a Responses API annotation is: a type it does not know is an error naming it, never dropped.
            annotations.append(annotation)
            continue
        cited = field_of(annotation, "url_citation")
        # Without the nested object (a flat annotation, as the Responses API's), its fields are the annotation's
        # own: a field missing from both is an error naming it.
        cited = annotation if cited is MISSING or cited is None else cited
        fields = ("url", "title", "start_index", "end_index")
        annotations.append({"type": "url_citation", **{name: field_of(cited, name) for name in fields}})
    return {"type": "output_text", "text": text if isinstance(text, str) else "", "annotations": annotations}

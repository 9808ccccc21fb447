"""OpenAI Chat Completions: a ``ChatCompletion`` whose message carries ``url_citation`` annotations.

Web search in Chat Completions returns ``choices[n].message.content`` and ``message.annotations``, each
``{"type": "url_citation", "url_citation": {"url", "title", "start_index", "end_index"}}``. Each choice's
message is read as a Responses API ``output_text`` part (``openai``): the claim is the text the
annotation annotates, the document is the URL. The ``openai`` package is never imported.
"""

from __future__ import annotations

from typing import Any

from pytest_citecheck._citations.model import MISSING, field_of


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
    else:
        messages = [raw]
    return [_as_output_text(message) for message in messages if message is not MISSING and message is not None]


def _as_output_text(message: Any) -> dict[str, Any]:
    text = field_of(message, "content")
    annotations = []
    for annotation in field_of(message, "annotations") or ():
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

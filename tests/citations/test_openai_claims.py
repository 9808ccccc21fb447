"""The claim of an OpenAI annotation is the text it annotates (issue 23, items 3 and 7).

An annotation marks a point (``file_citation``'s ``index``, the end of a ``url_citation``'s link), so the
text it annotates runs from the previous annotation's point, or the start of the line, to that point.
Before, the claim was only the last sentence before the point: on a real answer it judged "It is widely
recognized…" instead of the sentence the file supports. Built with the openai SDK's own classes.
"""

from __future__ import annotations

from typing import Any

from pytest_citecheck._citations.adapt import adapt_answer

ANSWER = (
    "The licence grants a patent licence to every contributor's users. It is widely recognized as a permissive "
    "licence.\nContributors are not liable for damages. Warranty is disclaimed too. Ask a lawyer for more."
)


def output_text(text: str, points: list[tuple[int, str]]) -> Any:
    from openai.types.responses import ResponseOutputText
    from openai.types.responses.response_output_text import AnnotationFileCitation

    annotations = [
        AnnotationFileCitation(type="file_citation", file_id=f"file-{name}", filename=name, index=point)
        for point, name in points
    ]
    return ResponseOutputText(type="output_text", text=text, annotations=annotations)


def test_the_claim_runs_from_the_line_start_or_the_previous_annotation() -> None:
    first = ANSWER.index("\n")
    second = ANSWER.index(" Warranty")
    third = ANSWER.index(" Ask")
    part = output_text(
        ANSWER, [(first, "apache.txt"), (second, "apache.txt"), (second, "warranty.txt"), (third, "w.txt")]
    )
    adapted = adapt_answer([part])
    assert [(c.id, c.claim, c.document) for c in adapted.citations] == [
        (
            "#0.1",
            "The licence grants a patent licence to every contributor's users. It is widely recognized as a "
            "permissive licence.",
            "apache.txt",
        ),
        ("#0.2", "Contributors are not liable for damages.", "apache.txt"),
        ("#0.3", "Contributors are not liable for damages.", "warranty.txt"),
        ("#0.4", "Warranty is disclaimed too.", "w.txt"),
    ]
    assert adapted.uncited == ["Ask a lawyer for more."]


def test_an_answer_without_annotations_has_every_sentence_uncited() -> None:
    adapted = adapt_answer([output_text("Refunds take 30 days. Gifts are final.", [])])
    assert adapted.citations == [] and adapted.uncited == ["Refunds take 30 days.", "Gifts are final."]

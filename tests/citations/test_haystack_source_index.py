"""A Haystack document's ``source_index`` is the number the answer cites it by, or an error (hunt-sdk-shapes).

haystack-ai's ``AnswerBuilder`` writes ``meta["source_index"]`` (the document's number in the prompt) on each
document it returns. One that could not be read as a whole number (a ``"2"`` from a store that keeps
metadata as text, a ``1.5``) was ignored and the document numbered by its position, and two documents with
one number were read as whichever came last: either way the answer's ``[1]`` was checked against another
document than the one it cited, silently. Each answer is haystack's own ``GeneratedAnswer`` from a real
``AnswerBuilder`` run (``return_only_referenced_documents=False``, so both documents come back).
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_citecheck import CitationInputError, Corpus, Status
from pytest_citecheck._citations.adapt import adapt_answer
from pytest_citecheck.testing import JevServer

CORPUS = Corpus(
    {
        "refunds.md": "# Refunds\n\nRefunds are granted within 30 days of purchase.\n",
        "gifts.md": "# Gifts\n\nGift cards are final and cannot be refunded.\n",
    }
)


def built_answer() -> Any:
    from haystack import Document
    from haystack.components.builders import AnswerBuilder

    documents = [
        Document(content="Refunds are granted within 30 days of purchase.", meta={"file_path": "refunds.md"}),
        Document(content="Gift cards are final and cannot be refunded.", meta={"file_path": "gifts.md"}),
    ]
    builder = AnswerBuilder(reference_pattern=r"\[(\d+)\]", return_only_referenced_documents=False)
    reply = "Refunds are granted within 30 days [1]. Gift cards cannot be refunded [2]."
    [answer] = builder.run(query="Can I get a refund?", replies=[reply], documents=documents)["answers"]
    assert [d.meta["source_index"] for d in answer.documents] == [1, 2]
    return answer


def test_a_source_index_written_as_digits_is_that_number(direct_checker: Any) -> None:
    answer = built_answer()
    answer.documents.reverse()  # a store that gives the documents back in another order, numbers as text
    for document in answer.documents:
        document.meta["source_index"] = str(document.meta["source_index"])
    # Before: numbered by position, [1] was the gift card document.
    assert [(c.id, c.document) for c in adapt_answer(answer).citations] == [
        ("#0.s1[1]", "refunds.md"),
        ("#0.s2[2]", "gifts.md"),
    ]
    server = JevServer().start()
    try:
        results = direct_checker(server).check(answer, CORPUS)
    finally:
        server.stop()
    assert [(r.status, r.document) for r in results] == [(Status.FOUND, "refunds.md"), (Status.FOUND, "gifts.md")]


@pytest.mark.parametrize(
    ("index", "message"),
    [
        (1.5, "is 1.5: must be the number the answer cites the document by, a whole number from 1"),
        ("one", "is 'one': must be the number"),
        (0, "is 0: must be the number"),
        (1, "is 1, as another document's is: the answer's [1] names neither for sure"),
    ],
)
def test_a_source_index_that_names_no_one_document_is_an_error(direct_checker: Any, index: Any, message: str) -> None:
    answer = built_answer()
    answer.documents[1].meta["source_index"] = index
    server = JevServer().start()
    try:
        with pytest.raises(CitationInputError) as raised:
            direct_checker(server).check(answer, CORPUS)
    finally:
        server.stop()
    assert (raised.value.citation, raised.value.field) == ("#0", "documents[1].meta['source_index']")
    assert message in str(raised.value)

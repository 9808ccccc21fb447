"""Real Gemini File Search answers, as google-genai's own ``GenerateContentResponse`` (sdk-shapes-latest).

``tests/data/payloads/gemini_file_search_paris.json`` holds what pydantic-ai's test suite recorded (the README
there says where): two ``gemini-2.5-pro`` answers and a streamed ``gemini-3-flash-preview`` one over a file of one
sentence pair uploaded without a display name. Each retrieved chunk names only its ``fileSearchStore`` and its
``text``: no ``title``, no ``uri``. Every one of their citations was ``invalid`` ("names no document (no title or
uri)"), so every such answer failed though each chunk is the file's text word for word. A chunk naming no document
is now a quote looked for in every document checked against.

A multimodal File Search chunk that cites an image (Google's documentation, "File Search", its REST example: a
``retrievedContext`` with a ``title``, the ``fileSearchStore`` and a ``media_id``, no ``text``) was read as a
claim-only citation of the document its title names, the claim judged against that document's text; it is now
``invalid``, naming ``media_id``: a claim resting on an image cannot be checked against text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from google.genai import types
from support import judged_check, refused_check

from pytest_citecheck import Corpus, Source, Status

RECORDED = json.loads(
    (Path(__file__).resolve().parent.parent / "data" / "payloads" / "gemini_file_search_paris.json").read_text(
        encoding="utf-8"
    )
)
FILE = Source(sections={"file": RECORDED["file"]}, name="paris.txt")
OTHER = Source(sections={"file": "Berlin is the capital of Germany."}, name="berlin.txt")


def response(number: int) -> types.GenerateContentResponse:
    return types.GenerateContentResponse.model_validate(RECORDED["responses"][number])


def streamed() -> list[types.GenerateContentResponse]:
    return [types.GenerateContentResponse.model_validate(chunk) for chunk in RECORDED["stream"]]


def test_a_chunk_naming_no_document_is_found_in_the_uploaded_file(direct_checker: Any) -> None:
    for source in (FILE, Corpus({"berlin.txt": OTHER, "paris.txt": FILE})):
        results, claims = judged_check(direct_checker, response(0), source)
        assert [(r.id, r.status, r.document) for r in results] == [
            ("#0.1.0", Status.FOUND, None if isinstance(source, Source) else "paris.txt"),
            ("#0.2.0", Status.FOUND, None if isinstance(source, Source) else "paris.txt"),
        ]
        assert sorted(claims) == [  # Jev is asked concurrently: in no set order
            "Paris is also known for its famous landmarks, such as the Eiffel Tower.",
            "The capital of France is Paris.",
        ]


def test_the_support_citing_the_second_chunk_is_read_and_the_rest_of_the_answer_is_uncited(
    direct_checker: Any,
) -> None:
    results, claims = judged_check(direct_checker, response(1), FILE)
    assert [(r.id, r.status) for r in results] == [("#0.1.1", Status.FOUND)]
    assert claims == ["The Eiffel Tower is a world-renowned landmark located in Paris, the capital of France"]
    from pytest_citecheck._citations.adapt import adapt_answer

    uncited = adapt_answer(response(1)).uncited
    assert uncited[0] == "It is a wrought-iron lattice tower situated on the Champ de Mars." and len(uncited) == 8


def test_a_streamed_file_search_answer_is_read_as_the_whole_one(direct_checker: Any) -> None:
    results, claims = judged_check(direct_checker, streamed(), Corpus({"berlin.txt": OTHER, "paris.txt": FILE}))
    assert [(r.id, r.status, r.document) for r in results] == [
        ("#0.1.0", Status.FOUND, "paris.txt"),
        ("#0.2.0", Status.FOUND, "paris.txt"),
    ]
    assert sorted(claims) == [
        "It is well-known for its iconic landmarks, such as the Eiffel Tower.",
        "The capital of France is **Paris**.",
    ]


def test_a_chunk_whose_text_is_in_no_document_is_missing_not_passed(direct_checker: Any) -> None:
    results, _ = judged_check(direct_checker, response(0), Corpus({"berlin.txt": OTHER}))
    assert [r.status for r in results] == [Status.MISSING, Status.MISSING]


def test_a_chunk_citing_an_image_is_invalid_naming_media_id(direct_checker: Any) -> None:
    claim = "The product comes in red."
    image = {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": claim}]},
                "groundingMetadata": {
                    "groundingChunks": [
                        {
                            "retrievedContext": {
                                "title": "product_image",
                                "fileSearchStore": "fileSearchStores/my-store-123",
                                "media_id": "fileSearchStores/my-store-123/blobs/BlobId-456",
                            }
                        }
                    ],
                    "groundingSupports": [{"segment": {"text": claim}, "groundingChunkIndices": [0]}],
                },
            }
        ]
    }
    answer = types.GenerateContentResponse.model_validate(image)
    catalogue = Corpus({"product_image": Source(sections={"1": "The product comes in red, blue and green."})})
    # Before: a claim-only citation of 'product_image', judged against that document's text.
    results, claims = refused_check(
        direct_checker, answer, catalogue, r"citation '#0\.1\.0', field 'grounding_chunks\.retrieved_context\.media_id'"
    )
    assert [(r.id, r.status) for r in results] == [("#0.1.0", Status.INVALID)]
    assert claims == []

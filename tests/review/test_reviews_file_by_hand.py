"""The reviews file as a team edits it outside `citecheck review`: merges, hand edits, permissions.

Found by trying the RFC 7519 example the way a team works (two branches each recording decisions,
merged with git): a merge resolved by keeping both sides, or a `merge=union` driver, leaves the same
decision (or the same field) twice; `json` keeps the last one without a word, so one reviewer's
decision was ignored. Each such file is now an error naming the file and the line.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from pytest_citecheck._review.decisions import Reviews, ReviewsFileError

ROW = {
    "test": "test_rfc7519.py::test_cookbook_citation[iat_future]",
    "id": "iat_future",
    "status": "section-only",
    "section": "4.1.6",
    "verdict": "unsupported",
    "confidence": 0.56,
    "auto": False,
    "model": "jev-1.12",
    "claim": 'The "iat" claim requires validators to reject tokens whose issue time is in the future.',
    "quote": None,
    "span": None,
    "auto_accept": 0.8,
    "section_text": '4.1.6.  "iat" (Issued At) Claim',
    "review_key": "16cc939bdc1d2069bfdbea69f9f1a7bf2daacb38b9c9cff673be0b4b5e80003b",
    "reviews_file": "citecheck-reviews.json",
}


def _written(path: Path, verdict: str, by: str) -> str:
    """The reviews file `citecheck review --set iat_future=VERDICT --by BY` writes."""
    reviews = Reviews.load(path)
    reviews.record(ROW, verdict, by=by, at="2026-12-05T02:09:03Z")
    reviews.save()
    return path.read_text()


def _entry_block(text: str) -> str:
    start = text.index('    "16cc')
    return text[start : text.index("\n    }", start) + len("\n    }")]


def test_a_decision_kept_twice_by_a_merge_is_an_error_naming_the_line_whichever_comes_last(tmp_path: Path) -> None:
    path = tmp_path / "citecheck-reviews.json"
    alice = _entry_block(_written(path, "contradicted", "Alice"))
    bob_text = _written(path, "verified", "Bob")
    bob = _entry_block(bob_text)
    for first, second in ((alice, bob), (bob, alice)):
        # The conflict resolved by keeping both sides: valid JSON, one key twice.
        path.write_text(bob_text.replace(bob, first + ",\n" + second))
        assert json.loads(path.read_text())  # what the file looked like to `json`: fine
        with pytest.raises(ReviewsFileError) as caught:
            Reviews.load(path)
        message = str(caught.value)
        assert str(path) in message and "line 17:" in message and "'16cc939bdc1d" in message
        assert "appears twice" in message


def test_a_union_merge_that_repeats_a_field_is_an_error_not_the_last_reviewers_name(tmp_path: Path) -> None:
    # `citecheck-reviews.json merge=union`, both reviewers confirming with different names: each
    # line that differs is kept, so "by" is there twice and the JSON is still valid.
    path = tmp_path / "citecheck-reviews.json"
    text = _written(path, "verified", "Alice")
    path.write_text(text.replace('"by": "Alice",', '"by": "Alice",\n      "by": "Bob",'))
    with pytest.raises(ReviewsFileError, match=r"line 8: 'by' appears twice"):
        Reviews.load(path)


def test_a_hand_edited_decision_is_named_by_its_line_and_citation(tmp_path: Path) -> None:
    path = tmp_path / "citecheck-reviews.json"
    path.write_text(_written(path, "verified", "Ada").replace('"verdict": "verified"', '"verdict": "verifed"'))
    with pytest.raises(ReviewsFileError) as caught:
        Reviews.load(path)
    assert str(caught.value) == (
        f"{path}: line 3: decision '16cc939bdc1d' (citation 'iat_future') has no valid verdict "
        "(expected one of verified, unsupported, contradicted)"
    )


def test_crlf_line_endings_are_read_as_written(tmp_path: Path) -> None:
    path = tmp_path / "citecheck-reviews.json"
    path.write_bytes(_written(path, "verified", "Ada").replace("\n", "\r\n").encode())
    assert Reviews.load(path).decisions[ROW["review_key"]]["by"] == "Ada"


def test_a_read_only_reviews_file_is_not_replaced(tmp_path: Path) -> None:
    # The write renames a new file over the old one, which a directory allows whatever the file's
    # mode: a file made read-only (to freeze the decisions) would have been replaced all the same.
    path = tmp_path / "citecheck-reviews.json"
    before = _written(path, "verified", "Ada")
    path.chmod(0o444)
    reviews = Reviews.load(path)
    reviews.record(ROW, "contradicted", by="Eve")
    with pytest.raises(ReviewsFileError, match="is read-only; make it writable"):
        reviews.save()
    assert path.read_text() == before and stat.S_IMODE(path.stat().st_mode) == 0o444


def test_a_merge_conflict_left_in_the_file_is_named_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "citecheck-reviews.json"
    text = _written(path, "verified", "Alice")
    path.write_text(
        text.replace(
            '      "by": "Alice",\n',
            '<<<<<<< HEAD\n      "by": "Alice",\n=======\n      "by": "Bob",\n>>>>>>> bob\n',
        )
    )
    with pytest.raises(ReviewsFileError) as caught:
        Reviews.load(path)
    assert str(caught.value) == (
        f"the reviews file {path} has a merge conflict left in it (line 7: '<<<<<<< HEAD'); "
        "resolve it, keeping each citation's decision once"
    )


def test_a_field_given_twice_is_found_in_its_own_decision_not_the_first_one(tmp_path: Path) -> None:
    path = tmp_path / "citecheck-reviews.json"
    reviews = Reviews.load(path)
    reviews.record({**ROW, "id": "a", "review_key": "0" * 64}, "verified", by="Ada", at="2026-12-05T02:09:03Z")
    reviews.record(ROW, "verified", by="Alice", at="2026-12-05T02:09:03Z")
    reviews.save()
    text = path.read_text()
    path.write_text(text.replace('"by": "Alice",', '"by": "Alice",\n      "by": "Bob",'))
    with pytest.raises(ReviewsFileError, match=r"line 22: 'by' appears twice"):
        Reviews.load(path)
    assert path.read_text().splitlines()[21].strip() == '"by": "Bob",'

"""The session reads each reviews file once (``CitecheckRun.reviews_for``), every test of a directory
gets what was read, and a damaged file fails every test that reads it, not only the first."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_citecheck._pytest_glue.session import CitecheckRun
from pytest_citecheck._review.decisions import Reviews, ReviewsFileError


def test_a_reviews_file_is_read_once_and_a_damaged_one_fails_every_reader(
    pytestconfig: pytest.Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = CitecheckRun(pytestconfig)  # not registered: only its reviews are asked for
    read: list[Path] = []
    load = Reviews.load.__func__  # type: ignore[attr-defined]

    def counted(cls: type[Reviews], path: Path) -> Reviews:
        read.append(Path(path))
        return load(cls, path)

    monkeypatch.setattr(Reviews, "load", classmethod(counted))

    damaged = tmp_path / "damaged" / "citecheck-reviews.json"
    damaged.parent.mkdir()
    damaged.write_text("{not json")
    for _ in range(3):
        with pytest.raises(ReviewsFileError, match="not valid JSON"):
            run.reviews_for(damaged)

    (tmp_path / "plain").mkdir()
    plain = tmp_path / "plain" / "citecheck-reviews.json"  # absent: no decisions
    first = run.reviews_for(plain)
    assert run.reviews_for(plain) is first
    # The same file named another way is the same reviews, not read again.
    assert run.reviews_for(tmp_path / "damaged" / ".." / "plain" / "citecheck-reviews.json") is first
    assert read == [damaged.resolve(), plain.resolve()]

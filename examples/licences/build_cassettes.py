"""Build this example's cassettes from scripted answers: synthetic, not Jev's.

No machine here reaches TypeSafe's API, so the answers are a script: each claim of ``answers.json``
gets a fixed relation and probability below, served by the Jev-compatible loopback server of
``pytest_citecheck.testing`` and recorded through the real stack (typesafe-sdk -> httpx2 -> vcrpy).
The replies name the model ``synthetic-1`` so no cassette can pass for a real Jev answer. A
request for a claim the script does not know is answered with HTTP 500, which fails the recording.

    python examples/licences/build_cassettes.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from pytest_citecheck.testing import JevServer, Reply

HERE = Path(__file__).resolve().parent
MODEL = "synthetic-1"

# claim -> (relation, probability of that relation): what a careful reader of the judged text would say.
SCRIPT = {
    "Apache-2.0 gives you a patent licence from every contributor.": ("supports", 0.96),
    "Apache-2.0 lets you use the licensor's trademarks to promote your product.": ("contradicts", 0.98),
    "Under MPL-2.0 you may ship MPL-licensed files inside a larger work under terms of your choice.": (
        "supports",
        0.92,
    ),
    "GPL-3 lets you distribute binaries if you also provide the corresponding source.": ("supports", 0.94),
    "Violating the licence terminates your rights under it.": ("supports", 0.9),
    "GPL-3 software comes with no warranty, to the extent the law allows.": ("supports", 0.98),
    "The BSD licence lets you redistribute binaries if their documentation reproduces the copyright notice.": (
        "supports",
        0.88,
    ),
}


def scripted_answer(claim: str, section: str) -> tuple[str, float] | Reply:
    if claim not in SCRIPT:
        return Reply(500, {"detail": f"no scripted answer for claim {claim[:40]!r}"})
    return SCRIPT[claim]


def main() -> int:
    with JevServer(scripted_answer, model=MODEL) as server:
        os.environ["TYPESAFE_BASE_URL"] = server.url
        os.environ["TYPESAFE_API_KEY"] = "synthetic-build"
        code = pytest.main([str(HERE), "-q", "-p", "no:cacheprovider", "--citecheck-record-mode=rewrite"])
        asked = len(server.systemone_requests)
    print(f"{asked} requests given scripted (synthetic) answers; cassettes in {HERE / 'cassettes'}")
    return int(code)


if __name__ == "__main__":
    sys.exit(main())

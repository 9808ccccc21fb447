"""Build this example's cassettes from the cookbook's recorded jev-1.12 answers.

The cookbook shipped its answers as ``json_cache.json``, keyed by
``sha256("ask|" + claim + "|" + section_text)``. This script serves exactly those answers from a
Jev-compatible server on 127.0.0.1 and records the example's tests against it through the real
stack (typesafe-sdk -> httpx2 -> vcrpy), so the cassettes hold what TypeSafe's API would have
returned and nothing else. A request whose key is not in the cache is answered with HTTP 500,
which fails the recording: the cassettes can only hold the cookbook's answers.

The replies are sent with ``rehearsal=False``: the loopback server marks every answer it makes up
(``"rehearsal"`` in the body, refused on replay without ``--citecheck-rehearsal``), and these are
not made up but Jev's own, re-served as recorded, so the README's main job replays them with no opt-in.

    python examples/rfc7519/build_cassettes.py
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

import pytest

from pytest_citecheck.testing import JevServer, Reply

HERE = Path(__file__).resolve().parent
CACHE = json.loads((HERE / "json_cache.json").read_text(encoding="utf-8"))


def cookbook_answer(claim: str, section: str) -> Reply:
    key = hashlib.sha256(f"ask|{claim}|{section}".encode()).hexdigest()
    if key not in CACHE:
        return Reply(500, {"detail": f"no recorded cookbook answer for claim {claim[:40]!r}"})
    answer = CACHE[key]
    return Reply(
        200,
        {
            "model": "jev-1.12",
            "answers": {
                "relation": {
                    "type": "choice",
                    "choice": answer["choice"],
                    "confidence": answer["confidence"],
                    "probabilities": answer["probabilities"],
                }
            },
            "usage": {"input_tokens": answer["input_tokens"], "output_tokens": answer["output_tokens"]},
        },
        rehearsal=False,  # Jev's recorded answer, re-served as it was given: not the rehearsal server's
    )


def main() -> int:
    with JevServer(cookbook_answer) as server:
        os.environ["TYPESAFE_BASE_URL"] = server.url
        os.environ["TYPESAFE_API_KEY"] = "cookbook-replay-build"
        code = pytest.main([str(HERE), "-q", "-p", "no:cacheprovider", "--citecheck-record-mode=rewrite"])
        asked = len(server.systemone_requests)
    print(f"{asked} requests answered from json_cache.json; cassettes in {HERE / 'cassettes'}")
    return int(code)


if __name__ == "__main__":
    sys.exit(main())

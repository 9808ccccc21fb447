"""The Jev-compatible server as a command (``python -m pytest_citecheck.testing``), as benchmarks and users run it."""

from __future__ import annotations

import subprocess
import sys

import pytest
from typesafe_sdk import Choice, RetryPolicy, TypeSafeClient, TypeSafeRateLimitError


def test_the_server_command_serves_rate_limits_then_answers_and_counts_requests():
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pytest_citecheck.testing",
            "--limit-first",
            "1",
            "--retry-after",
            "7",
            "--model",
            "jev-9",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = server.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        question = {
            "relation": Choice(instructions="How?", criteria={"supports": "a", "contradicts": "b", "says_nothing": "c"})
        }
        with TypeSafeClient(api_key="k", base_url=url, compression=False, retry=RetryPolicy(max_retries=0)) as client:
            with pytest.raises(TypeSafeRateLimitError) as limited:
                client.system_one(state={"claim": "c", "section": "s"}, questions=question)
            assert limited.value.retry_after_ms == 7000
            answer = client.system_one(state={"claim": "c", "section": "s"}, questions=question)
        assert answer.model == "jev-9"
        assert answer.answers["relation"].choice == "supports"
    finally:
        _, errors = server.communicate(input="", timeout=30)
    assert server.returncode == 0
    assert "served 2 requests" in errors


def test_yes_no_questions_are_scripted_by_name_and_flag_nothing_unscripted():
    from typesafe_sdk import Noul

    from pytest_citecheck.testing import JevServer

    questions = {
        "relation": Choice(instructions="How?", criteria={"supports": "a", "contradicts": "b", "says_nothing": "c"}),
        "out_of_context": Noul(instructions="Out of context?"),
        "best_section": Noul(instructions="The best section?"),
        "anything_else": Noul(instructions="Other?"),
    }
    state = {"claim": "c", "section": "s"}
    with JevServer() as server, TypeSafeClient(api_key="k", base_url=server.url, compression=False) as client:
        unscripted = client.system_one(state=state, questions=questions).answers
    # "no" for the questions whose "yes" flags, "yes" for best_section, whose "no" does.
    assert [unscripted[name].noul for name in ("out_of_context", "best_section", "anything_else")] == [0.02, 0.98, 0.02]
    with (
        JevServer(
            questions={"out_of_context": lambda claim, section: 0.91}, screen=lambda claim, section: 0.4
        ) as server,
        TypeSafeClient(api_key="k", base_url=server.url, compression=False) as client,
    ):
        scripted = client.system_one(state=state, questions=questions).answers
    assert [scripted[name].noul for name in ("out_of_context", "best_section", "anything_else")] == [0.91, 0.98, 0.4]

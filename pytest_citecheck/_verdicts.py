"""The verdicts of the cookbook, and Jev's labels for each verdict.

Kept apart from ``_results`` (which re-exports them) so that ``_options``, loaded by every pytest
run that has the plugin installed, can name verdicts without loading the result classes. The
statuses of step 1 are in ``_status``, which that run does not load (an enum of eight members costs
it about 1 M instructions).
"""

from __future__ import annotations

from enum import Enum


class _Named(str, Enum):
    """An enum whose members print as their value (``str(Verdict.VERIFIED) == "verified"``)."""

    def __str__(self) -> str:
        return str(self.value)


class Verdict(_Named):
    """The four verdicts of the cookbook, and ``errored``: no verdict, because the citation's check raised."""

    VERIFIED = "verified"
    UNSUPPORTED = "unsupported"
    CONTRADICTED = "contradicted"
    FABRICATED = "fabricated"
    # The check raised (an input error, a cassette miss, an API error, a malformed answer, a time-out)
    # or never ran because an earlier citation's did: the result carries the cause (``error``) and the
    # test fails on the error. Never a verdict ``fail_on`` names (it fails its test whatever the setting).
    ERRORED = "errored"


# Jev's label for how the section relates to the claim -> the verdict it means.
RELATION_TO_VERDICT = {
    "supports": Verdict.VERIFIED,
    "contradicts": Verdict.CONTRADICTED,
    "says_nothing": Verdict.UNSUPPORTED,
}

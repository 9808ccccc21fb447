"""Where a test's cassette lives: a file-system-safe, distinct name for each test."""

from __future__ import annotations

import re
from hashlib import sha256

_UNSAFE_NAME = re.compile(r"[^\w.\-\[\]=,+@ ]|\s")


def cassette_name(test_name: str, *, beside_pytest_recording: bool = False) -> str:
    """A file-system-safe, distinct file name for a test (parametrised ids included).

    pytest-recording names a ``@pytest.mark.vcr`` test's cassette ``cassettes/<module>/<test>.yaml``
    too; such a test's citecheck cassette is ``<test>.citecheck.yaml`` so neither overwrites the other.
    """
    safe = _UNSAFE_NAME.sub("_", test_name)
    if safe != test_name or len(safe) > 120:
        # Two names that differ only in replaced characters must not share a file.
        safe = f"{safe[:100]}-{sha256(test_name.encode()).hexdigest()[:8]}"
    return safe + (".citecheck.yaml" if beside_pytest_recording else ".yaml")

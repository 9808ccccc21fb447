"""Which versions of typesafe-sdk and vcrpy the plugin works with, checked when it is imported.

pip enforces the bounds in ``pyproject.toml`` at install time, but an environment can drift afterwards
(``pip install -U vcrpy``, ``--no-deps``, a lock file made elsewhere). The plugin uses internals of
both libraries where they have no public API for what it needs, so an unsupported version would fail
deep inside a test with an error about a missing attribute, or worse, an error blaming the cassette.
This module turns that into one clear error at import, naming the package and the versions needed.

It reads versions from the installed metadata (``importlib.metadata``, which pytest has already
imported): neither library is imported here, so loading the plugin stays cheap.
``tests/project/test_dependencies.py`` keeps ``SUPPORTED`` and ``pyproject.toml`` in step.

The documentation site's address (``docs_url``) is here too, with what else the package says of
itself to the person reading an error: pytest loads this module in every run, and the option
table's help names pages of the site (``_errors`` re-exports it for the messages).
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import metadata

# The documentation site ([project.urls] Documentation in pyproject.toml). A message that refers to the
# documentation names one of its pages in full: the person reading it installed a wheel, not docs/.
DOCS_URL = "https://pytest-citecheck.readthedocs.io/en/latest/"


def docs_url(page: str, anchor: str = "") -> str:
    """The address of a docs site page built from ``docs/<page>.md``, e.g. ``docs_url("usage", "review")``.

    ``anchor`` is a heading's id as MkDocs makes it (lower case, words joined by hyphens).
    tests/project/test_docs_site.py checks that every page and anchor named in the package exists.
    """
    return f"{DOCS_URL}{page}/" + (f"#{anchor}" if anchor else "")


class Supported:
    """A dependency's supported range, ``minimum <= version < below``, and what sets each end.

    A plain class, not a ``NamedTuple``: pytest imports this module in every run, and building a
    named tuple class compiles its constructor (about 1 M instructions).
    """

    __slots__ = ("package", "minimum", "below", "why")

    def __init__(self, package: str, minimum: str, below: str, why: str) -> None:
        self.package = package
        self.minimum = minimum
        self.below = below
        self.why = why

    def __repr__(self) -> str:
        return f"Supported({self.package!r}, {self.minimum!r}, {self.below!r})"

    @property
    def specifier(self) -> str:
        return f"{self.package}>={self.minimum},<{self.below}"


SUPPORTED = (
    Supported(
        "typesafe-sdk",
        "0.7.5",
        "0.8",
        "0.7.5 added compression=, which keeps recorded bodies plain JSON; the rate-limit retry policy "
        "overrides RetryPolicy._stop, and replay answers inside transport.send through RequestState, internal seams of "
        "the 0.7 series",
    ),
    Supported(
        "vcrpy",
        "9.4",
        "10",
        "9.4 added vcr.patch.PATCHER_NAMES; cassettes are opened and patched through "
        "VCR.get_merged_config, Cassette.load, CassettePatcherBuilder and Cassette._save, internals of the 9 series",
    ),
)


class UnsupportedDependencyError(ImportError):
    """An installed dependency is outside the versions pytest-citecheck supports."""


def release(version: str) -> tuple[int, ...]:
    """The release numbers of a version string: ``"9.4.2"`` -> ``(9, 4, 2)``, ``"0.8.0rc1"`` -> ``(0, 8, 0)``.

    Pre-releases count as their release, so ``0.8.0rc1`` is outside ``<0.8`` as pip would have it.
    """
    # What ``re.match(r"\s*v?(\d+(?:\.\d+)*)", version)`` reads, without compiling a pattern in every run.
    text = version.strip()
    text = text[1:] if text.startswith("v") else text
    numbers: list[int] = []
    for part in text.split("."):
        digits = _leading_decimals(part)
        if not digits:
            break
        numbers.append(int(digits))
        if len(digits) < len(part):
            break
    if not numbers:
        raise ValueError(f"not a version: {version!r}")
    while len(numbers) > 1 and numbers[-1] == 0:
        numbers.pop()  # 10.0 == 10
    return tuple(numbers)


def _leading_decimals(part: str) -> str:
    count = 0
    while count < len(part) and part[count].isdecimal():
        count += 1
    return part[:count]


def installed_version(package: str) -> str:
    """The installed version of ``package``, read from the first lines of its metadata file.

    ``metadata.version`` parses the whole file with the ``email`` package, which nothing else in a
    pytest run imports: a third of what loading the plugin costs. The ``Version`` header is one of
    the first lines of ``METADATA`` (``PKG-INFO`` for an egg); ``metadata.version`` is the fallback.
    """
    distribution = metadata.distribution(package)  # PackageNotFoundError when it is not installed
    text = distribution.read_text("METADATA") or distribution.read_text("PKG-INFO") or ""
    for line in text.splitlines():
        if not line.strip():
            break  # the headers end at the first blank line
        if line.startswith("Version:"):
            return line.partition(":")[2].strip()
    return distribution.version


def unsupported(installed_version: Callable[[str], str] = installed_version) -> list[tuple[Supported, str | None]]:
    """Each dependency that is missing (``None``) or outside its supported range, with its installed version."""
    found: list[tuple[Supported, str | None]] = []
    for dependency in SUPPORTED:
        try:
            version = installed_version(dependency.package)
        except metadata.PackageNotFoundError:
            found.append((dependency, None))
            continue
        try:
            number = release(version)
        except ValueError:
            continue  # a version string we cannot read: let pip's word stand
        if not release(dependency.minimum) <= number < release(dependency.below):
            found.append((dependency, version))
    return found


def check_installed_versions(installed_version: Callable[[str], str] = installed_version) -> None:
    """Raise ``UnsupportedDependencyError`` naming each unsupported dependency and the versions it needs."""
    found = unsupported(installed_version)
    if not found:
        return
    needs = " and ".join(dependency.specifier for dependency, _ in found)
    has = " and ".join(
        f"{dependency.package} {version} is installed" if version else f"{dependency.package} is not installed"
        for dependency, version in found
    )
    command = " ".join(f"'{dependency.specifier}'" for dependency, _ in found)
    raise UnsupportedDependencyError(
        f"pytest-citecheck needs {needs}, but {has}. Install a supported version: python -m pip install {command}"
    )

"""What ships: the sdist and the wheel that ``python -m build`` makes, checked the way PyPI and a
downstream packager would (contents, ``twine check``, and an unpacked sdist that collects its own tests).

One test, because the build is the expensive part and must happen once, whichever xdist worker runs it.
It builds without isolation (setuptools from the test extra), so it needs no network.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from email.parser import HeaderParser
from pathlib import Path

import pytest
from packaging.requirements import Requirement

import pytest_citecheck

REPO = Path(__file__).resolve().parents[2]
# What a checkout may hold that is not the project: caches, environments, build output.
NOT_SOURCE = shutil.ignore_patterns(
    ".git", ".venv", "venv", "build", "dist", "site", "*.egg-info", "__pycache__", "*.pyc", ".*_cache", ".hypothesis"
)
# The sdist must hold these (and every file under these folders): enough to run the suite, the
# benchmarks, the example and the docs build from the sdist alone.
# .ci/run: tests/project/test_readme_commands.py reads it (the README's test command is the line CI runs).
SDIST_FILES = (
    "LICENSE",
    "README.md",
    "CHANGELOG.md",
    "CONTRIBUTING.md",
    "SECURITY.md",
    "pyproject.toml",
    "mkdocs.yml",
    ".ci/run",
)
SDIST_TREES = ("pytest_citecheck", "tests", "bench", "examples", "docs", "changelog.d")


def run(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(arg) for arg in args], cwd=cwd, capture_output=True, text=True)


def source_files(root: Path, tree: str) -> set[str]:
    return {
        path.relative_to(root).as_posix()
        for path in (root / tree).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and not path.name.endswith((".pyc", ".tmp"))
    }


# Directories every Unix system has, which the docs name for what they are (the rate limiter's state under
# /tmp/, Debian's texts under /usr/share/): a checkout in one of them (a fresh clone in /tmp, a packager's
# build under /usr/src) must not make those mentions leaks. The checkout's own path is still checked.
SYSTEM_DIRECTORIES = {"/tmp/", "/usr/", "/var/", "/opt/", "/srv/", "/mnt/"}


def build_machine_paths(repo: Path = REPO, home: Path | None = None) -> list[str]:
    """Absolute paths of this machine a shipped file must not name: the checkout, the home directory,
    and the top-level directory the checkout is in (the first part of its path: home or work
    directories), unless that is one of the ``SYSTEM_DIRECTORIES``."""
    top = "/" + repo.parts[1] + "/"
    return sorted({str(repo), str(home or Path.home()), top} - {"/", "//"} - SYSTEM_DIRECTORIES)


def names_path(text: str, machine: str) -> bool:
    """Whether ``text`` names the absolute path ``machine`` as a path of its own: not as the tail of a
    relative path (``tests/ci-top/`` does not name ``/ci-top/``) nor as the head of a longer name
    (``/home/builders`` does not name ``/home/builder``)."""
    tail = "" if machine.endswith("/") else r"(?![\w.-])"
    return re.search(r"(?<![\w./~-])" + re.escape(machine) + tail, text) is not None


def leaked_paths(files: list[Path], root: Path, machine_paths: list[str] | None = None) -> list[str]:
    """``file: path`` for each of ``files`` (relative to ``root``) that names one of ``machine_paths``
    (by default ``build_machine_paths()``)."""
    found = []
    for path in files:
        text = path.read_bytes().decode("utf-8", errors="replace")
        found += [
            f"{path.relative_to(root).as_posix()}: {machine}"
            for machine in machine_paths or build_machine_paths()
            if names_path(text, machine)
        ]
    return found


def shipped_files(root: Path) -> list[Path]:
    """The files of ``root`` (a checkout or an unpacked sdist) that the sdist ships (see MANIFEST.in)."""
    files = [root / name for name in SDIST_FILES]
    for tree in SDIST_TREES:
        files += [root / name for name in sorted(source_files(root, tree))]
    return files


def test_the_sdist_would_name_no_path_of_this_machine(tmp_path: Path) -> None:
    """What the sdist takes from the checkout names no absolute path of the machine it is built on
    (the slow test checks the built sdist itself); a planted one is caught."""
    assert leaked_paths(shipped_files(REPO), REPO) == []
    planted = tmp_path / "docs" / "planted.md"
    planted.parent.mkdir()
    planted.write_text(f"copied from {REPO / 'notes.txt'} and {Path.home() / 'x'}\n", encoding="utf-8")
    assert {line.split(": ")[0] for line in leaked_paths([planted], tmp_path)} == {"docs/planted.md"}
    # CI's checkout sits under a top-level directory named like the suite's own tests/check/ folder:
    # only the absolute path is flagged, never a relative path ending in the same name.
    relative = tmp_path / "docs" / "relative.md"
    relative.write_text("see `tests/ci-top/test_x.py` and ./ci-top/ and /home/builders\n", encoding="utf-8")
    assert leaked_paths([relative], tmp_path, ["/ci-top/", "/home/builder"]) == []
    relative.write_text("built in /ci-top/work/main, home (/home/builder)\n", encoding="utf-8")
    assert leaked_paths([relative], tmp_path, ["/ci-top/", "/home/builder"]) == [
        "docs/relative.md: /ci-top/",
        "docs/relative.md: /home/builder",
    ]


def test_a_checkout_in_a_system_directory_does_not_make_the_docs_mentions_of_it_leaks() -> None:
    """Found running the README's test command in a fresh clone under /tmp (hunt-install, Python 3.13):
    docs/reliability.md shows the rate limiter's state file under /tmp/, which was taken for a leak of the
    checkout's top-level directory."""
    # (Made-up homes and top-level directories: this file ships, and must not name this machine's.)
    in_tmp = build_machine_paths(Path("/tmp/example-clone"), Path("/home/example-user"))
    assert in_tmp == ["/home/example-user", "/tmp/example-clone"]
    assert leaked_paths([REPO / "docs" / "reliability.md"], REPO, in_tmp) == []
    assert build_machine_paths(Path("/usr/src/pytest-citecheck"), Path("/home/example-user")) == [
        "/home/example-user",
        "/usr/src/pytest-citecheck",
    ]
    top = build_machine_paths(Path("/example-top/main"), Path("/home/example-user"))
    assert top == ["/example-top/", "/example-top/main", "/home/example-user"]


@pytest.mark.slow
def test_the_sdist_and_wheel_ship_what_they_should_pass_twine_check_and_the_sdist_collects_its_tests(
    tmp_path: Path,
) -> None:
    # Build from a copy, so the checkout gets no build/ or egg-info and nothing untracked leaks in.
    source = tmp_path / "source"
    shutil.copytree(REPO, source, ignore=NOT_SOURCE)
    built = run(sys.executable, "-m", "build", "--no-isolation", "--outdir", tmp_path / "dist", source, cwd=tmp_path)
    assert built.returncode == 0, built.stdout + built.stderr
    version = pytest_citecheck.__version__
    wheel = tmp_path / "dist" / f"pytest_citecheck-{version}-py3-none-any.whl"
    sdist = tmp_path / "dist" / f"pytest_citecheck-{version}.tar.gz"
    assert sorted(p.name for p in (tmp_path / "dist").iterdir()) == sorted([wheel.name, sdist.name])

    # The wheel: the package (with py.typed), the licence, the entry points; nothing else.
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = HeaderParser().parsestr(archive.read(f"pytest_citecheck-{version}.dist-info/METADATA").decode())
        entry_points = archive.read(f"pytest_citecheck-{version}.dist-info/entry_points.txt").decode()
    dist_info = f"pytest_citecheck-{version}.dist-info/"
    package = {name for name in source_files(source, "pytest_citecheck") if name.endswith((".py", "py.typed"))}
    assert package <= names, sorted(package - names)
    assert {name for name in names if not name.startswith(dist_info)} == package
    assert dist_info + "licenses/LICENSE" in names
    assert "citecheck = pytest_citecheck.plugin" in entry_points  # the pytest11 plugin
    assert "citecheck = pytest_citecheck._cli:main" in entry_points  # the console script
    assert metadata["Version"] == version
    assert metadata["License-Expression"] == "MIT"
    assert metadata["Requires-Python"] == ">=3.11"
    urls = dict(url.split(", ", 1) for url in metadata.get_all("Project-URL"))
    assert set(urls) == {"Documentation", "Source", "Issues", "Changelog"}
    classifiers = metadata.get_all("Classifier")
    python_versions = sorted(c.rsplit(" ", 1)[1] for c in classifiers if re.fullmatch(r".*Python :: 3\.\d+", c))
    assert python_versions == ["3.11", "3.12", "3.13"], "classifiers must match the versions .ci/run tests"
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    required = {Requirement(line) for line in metadata.get_all("Requires-Dist")}
    assert {str(r) for r in required if r.marker is None} == {str(Requirement(d)) for d in project["dependencies"]}
    # Extras hold only what a user installs: the development tools are dependency groups, never published.
    assert metadata.get_all("Provides-Extra") == ["pdf"]
    assert {r.name for r in required if r.marker is not None} == {"pypdf", "pypdfium2"}

    # The sdist: everything the suite, the benchmarks, the example and the docs build need.
    with tarfile.open(sdist) as archive:
        top = f"pytest_citecheck-{version}/"
        members = {m.name.removeprefix(top) for m in archive.getmembers() if m.isfile()}
        unpacked = tmp_path / "unpacked"
        archive.extractall(unpacked, filter="data")
    expected = set(SDIST_FILES).union(*(source_files(source, tree) for tree in SDIST_TREES))
    assert expected <= members, sorted(expected - members)
    assert not [name for name in members if "__pycache__" in name or name.endswith(".pyc")]
    for needed in (
        "tests/conftest.py",
        "tests/data/rfc6749.txt",
        "bench/__main__.py",
        "examples/rfc7519/citations.json",
    ):
        assert needed in members

    # No absolute path of the machine that built it: its checkout, its home, its top-level directory.
    assert leaked_paths([path for path in unpacked.rglob("*") if path.is_file()], unpacked) == []

    # What PyPI would say about both: twine's checks (metadata, README rendering).
    checked = run(sys.executable, "-m", "twine", "check", "--strict", wheel, sdist, cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.count("PASSED") == 2

    # The unpacked sdist collects its own tests: every test module, no collection error.
    root = unpacked / top
    # -m "": both tiers (the default leaves the slow one out, and with it whole modules).
    collected = run(
        sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-m", "", cwd=root
    )
    assert collected.returncode == 0, collected.stdout[-3000:] + collected.stderr[-3000:]
    modules = {line.split("::")[0] for line in collected.stdout.splitlines() if "::" in line}
    assert modules == {path.relative_to(REPO).as_posix() for path in (REPO / "tests").glob("*/test_*.py")}
    assert re.search(r"^\d+ tests collected", collected.stdout, re.M), collected.stdout[-500:]
    # And the tests that read the project's own files pass there (hunt-install: the README's test
    # command is checked against .ci/run, which the sdist did not ship).
    project = run(
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-n0",
        "tests/project/test_readme_commands.py",
        "tests/project/test_release.py",
        cwd=root,
    )
    assert project.returncode == 0, project.stdout[-3000:] + project.stderr[-3000:]


@pytest.mark.slow
def test_an_sdist_built_in_a_checkout_where_the_readme_s_example_ran_ships_no_cache(tmp_path: Path) -> None:
    """CONTRIBUTING's release is ``python -m build`` in the checkout, and MANIFEST.in grafts whole folders:
    what running the README's example there leaves (pytest's cache beside the example's pytest.ini, holding
    the run's report) and the caches and environments other tools leave in a grafted folder must not ship."""
    source = tmp_path / "source"
    shutil.copytree(REPO, source, ignore=NOT_SOURCE)
    # The README's main job, as written (its report goes to the checkout's root, which is not grafted).
    example = run(
        sys.executable, "-m", "pytest", "examples/rfc7519", "--citecheck-json=rfc7519-report.json", cwd=source
    )
    assert example.returncode == 0, example.stdout[-3000:] + example.stderr[-3000:]
    assert (source / "examples" / "rfc7519" / ".pytest_cache" / "d" / "citecheck" / "last-report.json").is_file()
    # What other tools leave in a grafted folder: hypothesis (run from tests/), mypy, ruff, an environment.
    for left in (
        "tests/.hypothesis/examples/0",
        "tests/check/.mypy_cache/3.11/x.json",
        "docs/.ruff_cache/x",
        "examples/licences/.venv/pyvenv.cfg",
    ):
        (source / left).parent.mkdir(parents=True)
        (source / left).write_text("x\n", encoding="utf-8")
    built = run(
        sys.executable, "-m", "build", "--sdist", "--no-isolation", "--outdir", tmp_path / "dist", source, cwd=tmp_path
    )
    assert built.returncode == 0, built.stdout + built.stderr
    [sdist] = (tmp_path / "dist").iterdir()
    with tarfile.open(sdist) as archive:
        members = [m.name.split("/", 1)[1] for m in archive.getmembers() if m.isfile()]
    left_in = [name for name in members if re.search(r"(^|/)(\.[^/]*_cache|\.hypothesis|\.venv)/", name)]
    assert left_in == []
    assert "examples/rfc7519/citations.json" in members  # the example itself still ships

"""Installs that work, or refuse: the supported ranges are pyproject.toml's, and an unsupported
typesafe-sdk or vcrpy is one clear error when the plugin loads, naming the package and the versions."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

from pytest_citecheck._dependencies import (
    SUPPORTED,
    UnsupportedDependencyError,
    check_installed_versions,
    installed_version,
    release,
)

REPO = Path(__file__).resolve().parents[2]


def declared_dependencies() -> dict[str, Requirement]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return {(req := Requirement(line)).name: req for line in project["dependencies"]}


def test_the_checked_ranges_are_the_ones_pyproject_declares() -> None:
    declared = declared_dependencies()
    for dependency in SUPPORTED:
        assert declared[dependency.package].specifier == SpecifierSet(f">={dependency.minimum},<{dependency.below}")


def test_the_installed_versions_are_supported_and_inside_the_declared_ranges() -> None:
    check_installed_versions()  # what every import of the plugin does
    for dependency in SUPPORTED:
        assert metadata.version(dependency.package) in declared_dependencies()[dependency.package].specifier


@pytest.mark.parametrize("package", [*(dependency.package for dependency in SUPPORTED), "PyYAML", "pytest"])
def test_the_version_read_from_the_metadata_headers_is_the_one_importlib_metadata_reads(package: str) -> None:
    assert installed_version(package) == metadata.version(package)


def test_a_package_that_is_not_installed_is_reported_as_not_installed() -> None:
    with pytest.raises(metadata.PackageNotFoundError):
        installed_version("pytest-citecheck-no-such-package")


def test_tenacity_is_declared_because_the_retry_policy_imports_it() -> None:
    source = (REPO / "pytest_citecheck" / "_judge" / "retry.py").read_text(encoding="utf-8")
    assert "from tenacity import" in source
    assert "tenacity" in declared_dependencies()


@pytest.mark.parametrize(
    ("version", "expected"),
    [("9.4.2", (9, 4, 2)), ("10.0", (10,)), ("0.8.0rc1", (0, 8)), ("0.7.5.post1", (0, 7, 5)), ("v1.2", (1, 2))],
)
def test_release_numbers(version: str, expected: tuple[int, ...]) -> None:
    assert release(version) == expected


@pytest.mark.parametrize(
    ("installed", "message"),
    [
        (
            {"typesafe-sdk": "0.7.5", "vcrpy": "9.2.0"},
            "pytest-citecheck needs vcrpy>=9.4,<10, but vcrpy 9.2.0 is installed. "
            "Install a supported version: python -m pip install 'vcrpy>=9.4,<10'",
        ),
        (
            {"typesafe-sdk": "0.8.0rc1", "vcrpy": "10.0.0"},
            "pytest-citecheck needs typesafe-sdk>=0.7.5,<0.8 and vcrpy>=9.4,<10, but typesafe-sdk 0.8.0rc1 is "
            "installed and vcrpy 10.0.0 is installed. Install a supported version: "
            "python -m pip install 'typesafe-sdk>=0.7.5,<0.8' 'vcrpy>=9.4,<10'",
        ),
        (
            {"vcrpy": "9.4.2"},
            "pytest-citecheck needs typesafe-sdk>=0.7.5,<0.8, but typesafe-sdk is not installed. "
            "Install a supported version: python -m pip install 'typesafe-sdk>=0.7.5,<0.8'",
        ),
    ],
)
def test_each_unsupported_dependency_is_named_with_the_versions_needed(installed: dict[str, str], message: str) -> None:
    def version(package: str) -> str:
        if package not in installed:
            raise metadata.PackageNotFoundError(package)
        return installed[package]

    with pytest.raises(UnsupportedDependencyError) as raised:
        check_installed_versions(version)
    assert str(raised.value) == message


def fake_distribution(root: Path, name: str, version: str) -> None:
    """Metadata that importlib.metadata finds before the real one, as if ``name`` ``version`` were installed."""
    info = root / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8")


@pytest.mark.parametrize(
    ("package", "version", "needed"),
    [("vcrpy", "9.0.0", "vcrpy>=9.4,<10"), ("typesafe-sdk", "0.7.0", "typesafe-sdk>=0.7.5,<0.8")],
)
def test_pytest_refuses_to_start_with_an_unsupported_version_and_says_why(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, package: str, version: str, needed: str
) -> None:
    # A subprocess: what is tested is a fresh interpreter loading the plugin through its entry point.
    fake_distribution(pytester.path / "site", package, version)
    monkeypatch.setenv("PYTHONPATH", str(pytester.path / "site"))
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = pytester.runpytest_subprocess()
    assert result.ret != 0
    output = result.stdout.str() + result.stderr.str()
    assert f"pytest-citecheck needs {needed}, but {package} {version} is installed" in output
    assert f"python -m pip install '{needed}'" in output

    imported = subprocess.run(
        [sys.executable, "-c", "import pytest_citecheck"], capture_output=True, text=True, cwd=pytester.path
    )
    assert imported.returncode != 0
    assert f"UnsupportedDependencyError: pytest-citecheck needs {needed}" in imported.stderr

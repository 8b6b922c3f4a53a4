"""The tests mirror the package: every subpackage of ``cueshift`` with code has its ``tests/<name>/``.

Folders of data only (``sql/``, ``studies/``, ``reports/``: an ``__init__.py`` at most) need none;
cross-cutting folders (``tests/hardening/``, ``tests/simulate/``, …) may sit beside the mirror.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "engine" / "cueshift"


def _packages_with_code() -> list[str]:
    return sorted(
        folder.name
        for folder in PACKAGE.iterdir()
        if (folder / "__init__.py").is_file()
        and any(path.name != "__init__.py" for path in folder.rglob("*.py"))
    )


def test_the_package_has_subpackages_with_code() -> None:
    assert {"stats", "execution", "render", "cli"} <= set(_packages_with_code())


@pytest.mark.parametrize("package", _packages_with_code())
def test_every_subpackage_has_its_tests_folder(package: str) -> None:
    folder = ROOT / "tests" / package
    assert (folder / "__init__.py").is_file(), f"engine/cueshift/{package}/ has no tests/{package}/"
    assert any(folder.glob("test_*.py")), f"tests/{package}/ holds no test module"

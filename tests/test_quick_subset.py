"""``just test-quick`` (``pytest -m "not slow"``) leaves out only files that exist, and every test folder
of the mirror keeps test files in the quick run (issue 30)."""

from __future__ import annotations

from pathlib import Path

from conftest import ROOT, SLOW_TESTS


def test_every_slow_path_exists() -> None:
    assert [path for path in SLOW_TESTS if not (ROOT / path).exists()] == []


def test_every_test_folder_keeps_quick_tests() -> None:
    slow = {ROOT / path for path in SLOW_TESTS}
    folders = sorted(p for p in (ROOT / "tests").iterdir() if p.is_dir() and any(p.glob("test_*.py")))
    without = [
        folder.name
        for folder in folders
        if folder not in slow and not [f for f in folder.rglob("test_*.py") if f not in slow]
    ]
    assert without == []


def _quick_files(folder: Path) -> list[str]:
    slow = {ROOT / path for path in SLOW_TESTS}
    return sorted(f.name for f in folder.glob("test_*.py") if f not in slow)


def test_the_heaviest_folders_still_run_quick_tests() -> None:
    for name in ("execution", "hardening", "viewer", "render", "inference", "stats", "api", "cli"):
        assert _quick_files(ROOT / "tests" / name), name

"""tests/shared_builds.py: a study built once per session, a fresh copy per caller, no half builds."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from tests.shared_builds import built_once, shared_root


def _key(request: pytest.FixtureRequest, name: str) -> str:
    """A key no other test of the session uses (the shared folder outlives the test)."""
    return f"unit-{request.node.name}-{name}".replace("[", "-").replace("]", "")


def test_one_build_per_key_and_a_fresh_copy_per_call(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> None:
    calls: list[Path] = []

    def build(folder: Path) -> None:
        calls.append(folder)
        (folder / "db").write_text("built")
        (folder / "cache").mkdir()
        (folder / "cache" / "image").write_text("pixels")

    key = _key(request, "same")
    first = built_once(key, build, tmp_path_factory)
    second = built_once(key, build, tmp_path_factory)
    assert len(calls) == 1
    assert first != second and calls[0] not in (first, second)
    assert (second / "db").read_text() == "built" and (second / "cache" / "image").read_text() == "pixels"
    (first / "db").write_text("written by one consumer")
    assert (second / "db").read_text() == "built"
    assert (built_once(key, build, tmp_path_factory) / "db").read_text() == "built"
    other = built_once(_key(request, "other"), build, tmp_path_factory)
    assert len(calls) == 2 and (other / "db").read_text() == "built"


def test_a_failed_build_leaves_no_marker_and_the_next_call_builds_again(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> None:
    key = _key(request, "crash")

    def crash(folder: Path) -> None:
        (folder / "half").write_text("half written")
        raise RuntimeError("build crashed")

    with pytest.raises(RuntimeError, match="build crashed"):
        built_once(key, crash, tmp_path_factory)
    assert not (shared_root(tmp_path_factory) / f"{key}.done").exists()

    def build(folder: Path) -> None:
        (folder / "db").write_text("built")

    copy = built_once(key, build, tmp_path_factory)
    assert sorted(p.name for p in copy.iterdir()) == ["db"]
    assert (shared_root(tmp_path_factory) / f"{key}.done").exists()


def test_concurrent_callers_wait_for_the_one_build(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> None:
    key = _key(request, "race")
    calls: list[int] = []
    copies: list[Path] = []

    def build(folder: Path) -> None:
        calls.append(1)
        time.sleep(0.3)
        (folder / "db").write_text("built")

    def consume() -> None:
        copies.append(built_once(key, build, tmp_path_factory))

    threads = [threading.Thread(target=consume) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1
    assert len(set(copies)) == 3 and all((c / "db").read_text() == "built" for c in copies)


def test_keys_are_folder_names(tmp_path_factory: pytest.TempPathFactory) -> None:
    with pytest.raises(ValueError, match="shared build key '../x'"):
        built_once("../x", lambda folder: None, tmp_path_factory)


def test_xdist_workers_share_the_parent_of_their_base_temp(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = tmp_path_factory.getbasetemp()
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    assert shared_root(tmp_path_factory) == base.parent / "shared-builds"
    monkeypatch.delenv("PYTEST_XDIST_WORKER")
    assert shared_root(tmp_path_factory) == base / "shared-builds"

"""Expensive test studies built once per test session, across modules and pytest-xdist workers.

``built_once(key, build, tmp_path_factory)`` runs ``build(folder)`` the first time a session asks
for ``key`` and hands every caller its own copy of the folder: a consumer may write its copy, and
no two processes ever open the same DuckDB file read-write. The shared folder lies under the
session's common temporary root (under xdist every worker's base temp ``.../pytest-N/popen-gwK``
has the parent ``.../pytest-N``; in one process it is the base temp itself), guarded by an
exclusive ``fcntl.flock`` on ``<key>.lock``; ``<key>.done`` is written last, so a build that raised
(or a worker that died) leaves no marker, and the next caller clears the folder and builds again.

The key names the build and every parameter it takes (design, n_faces, resamples, seed, level ...):
only identical builds share a folder.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

#: A key is a folder name: letters, digits and ``._=-``.
_KEY = re.compile(r"[A-Za-z0-9._=-]+")


def shared_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session's temporary folder every xdist worker shares (the base temp in one process)."""
    base = tmp_path_factory.getbasetemp()
    root = base.parent if "PYTEST_XDIST_WORKER" in os.environ else base
    return root / "shared-builds"


def built_once(key: str, build: Callable[[Path], object], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh copy (a new folder of the caller's base temp) of the folder ``build`` fills for ``key``.

    ``build`` receives an empty folder and writes everything the consumers need into it (close
    every database it opens). It runs once per session and key: later calls, in this process or
    another worker, copy the finished folder. A ``build`` that raises leaves no done marker.
    """
    if not _KEY.fullmatch(key):
        raise ValueError(f"shared build key {key!r}: use letters, digits and ._=- only")
    root = shared_root(tmp_path_factory)
    root.mkdir(parents=True, exist_ok=True)
    folder, done = root / key, root / f"{key}.done"
    with (root / f"{key}.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not done.exists():
                shutil.rmtree(folder, ignore_errors=True)
                folder.mkdir()
                build(folder)
                done.touch()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    copy = tmp_path_factory.mktemp(key)
    shutil.copytree(folder, copy, dirs_exist_ok=True)
    return copy

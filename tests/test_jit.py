"""numba's cache with nowhere to write (issue 30): no ``NUMBA_CACHE_DIR``, the package's
``__pycache__`` folders unwritable and the user cache folder unmakeable. Without
:mod:`cueshift._jit` the first ``@njit(cache=True)`` raises ``cannot cache function … no locator
available`` and ``cueshift.stats`` cannot be imported; with it numba caches under the temporary
folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "engine" / "cueshift"

SCRIPT = """
import os, sys
import numpy as np
import cueshift.stats
import cueshift.power.draws
from cueshift.stats._ranks import average_ranks

assert cueshift.stats.__file__.startswith(sys.argv[1]), cueshift.stats.__file__
ranks, ties, tied = average_ranks(np.array([3.0, 1.0, 2.0, 2.0]))
print(ranks.tolist(), ties, tied)
print(os.environ.get("NUMBA_CACHE_DIR", ""))
"""


def _unwritable_copy(root: Path) -> Path:
    """The package copied under ``root`` with a regular file named ``__pycache__`` in every
    folder: nothing can be cached beside its modules, even by root (for whom modes do not count)."""
    copy = root / "site" / "cueshift"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for folder in [copy, *(p for p in copy.rglob("*") if p.is_dir())]:
        (folder / "__pycache__").write_text("not a folder", encoding="utf-8")
    return copy.parent


def test_kernels_import_and_run_when_no_cache_folder_is_writable(tmp_path: Path) -> None:
    site = _unwritable_copy(tmp_path)
    not_a_folder = tmp_path / "home-is-a-file"
    not_a_folder.write_text("", encoding="utf-8")
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env.update(
        PYTHONPATH=str(site),
        HOME=str(not_a_folder),
        XDG_CACHE_HOME=str(not_a_folder),
        TMPDIR=str(temporary),
        PYTHONDONTWRITEBYTECODE="1",
    )
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(site)], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    ranks_line, cache_line = done.stdout.strip().splitlines()[-2:]
    # scipy.stats.rankdata([3, 1, 2, 2]) = [4, 1, 2.5, 2.5]; one tie of two: 2**3 - 2 = 6
    assert ranks_line == "[4.0, 1.0, 2.5, 2.5] 6.0 True"
    cache = Path(cache_line)
    assert cache.parent == temporary and cache.is_dir()
    assert any(cache.rglob("*.nbi")), "numba wrote no cache index there"

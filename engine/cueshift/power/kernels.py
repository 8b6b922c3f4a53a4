"""The numba kernels a plan runs: whether their on-disk cache is cold, and compiling them up front.

Every kernel is ``@numba.njit(cache=True)``: numba writes the machine code next to the module
(``__pycache__``), or under ``NUMBA_CACHE_DIR`` where that is set, or, where the package's folder
is not writable (a wheel in a read-only site-packages), in the user's cache folder
(``~/.cache/numba``), or, where neither is writable, in a per-user folder under the temporary
folder (:mod:`cueshift._jit`); a later process loads it instead of compiling. Only the first run of an
install compiles, which takes :data:`COMPILE_SECONDS` on a quiet machine (``BENCHMARKS.md``):
:func:`prepare_kernels` says so on one line before it compiles them, and says nothing when the
cache is warm.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from cueshift.power.progress import SILENT, Progress

#: Modules whose kernels a plan runs (the φ draws and the rank tests).
KERNEL_MODULES = (
    "cueshift.power.draws",
    "cueshift.power.face_mean_draws",
    "cueshift.stats._ranks",
    "cueshift.stats._signed_rank",
    "cueshift.stats._group_rank",
)
#: Seconds the plan's kernels take to compile on a quiet 2-core machine (BENCHMARKS.md).
COMPILE_SECONDS = 20
#: The progress task of the compilation.
COMPILE_TASK = "compiling statistics kernels"


def _dispatchers() -> list[Any]:
    """The cached numba dispatchers of :data:`KERNEL_MODULES`, once each (inlined helpers have no
    cache of their own)."""
    found: dict[int, Any] = {}
    for name in KERNEL_MODULES:
        for value in vars(importlib.import_module(name)).values():
            options: dict[str, Any] = getattr(value, "targetoptions", None) or {}
            cached = getattr(value, "_cache", None) is not None and hasattr(value, "py_func")
            if cached and options.get("inline", "never") != "always":
                found[id(value)] = value
    return list(found.values())


def cold_kernels() -> list[str]:
    """Names of the plan's kernels with no compiled code in their on-disk cache (empty: warm).

    Reads numba's cache index (a private structure): where that fails, the kernel counts as warm,
    so a numba change can cost the note but never the plan.
    """
    cold = []
    for dispatcher in _dispatchers():
        try:
            entries = dispatcher._cache._cache_file._load_index()
        except Exception:  # noqa: BLE001 - numba internals; the note is a courtesy
            continue
        if not entries:
            cold.append(dispatcher.py_func.__name__)
    return cold


def compile_kernels() -> None:
    """Run each of the plan's kernels once on tiny inputs, so numba compiles (or loads) them now."""
    from cueshift.power.draws import binomial_phi
    from cueshift.power.face_mean_draws import shift_face_means
    from cueshift.stats import kruskal_columns, mann_whitney_columns, one_sample_test

    rng = np.random.default_rng(0)
    binomial_phi(np.full((2, 3), 0.5), 12, 0.01, rng)
    shift_face_means(
        np.zeros((4, 3)),
        np.full((4, 3), 0.5),
        np.zeros((2, 4)),
        np.zeros((2, 3)),
        0.1,
        n=12,
        invalid_rate=0.01,
        scored=False,
        serving_sd=0.0,
        applies=np.ones((4, 2), dtype=bool),
        rng=rng,
    )
    one_sample_test(np.array([[1.0, 1.0, 2.0, -1.0, 3.0, 0.0, 2.0]]).T)  # ties: the exact sign flips
    codes = np.array([0, 1, 2] * 4, dtype=np.int64)
    mann_whitney_columns(rng.normal(size=(12, 2)), codes % 2)
    kruskal_columns(rng.normal(size=(12, 2)), codes, 3)


def prepare_kernels(progress: Progress = SILENT) -> bool:
    """Compile the plan's kernels now when their cache is cold, with a one-line note first;
    whether they were cold."""
    if not cold_kernels():
        return False
    progress.note(f"compiling statistics kernels (first run only, ~{COMPILE_SECONDS} s)")
    progress.step(COMPILE_TASK, 0, 1)
    compile_kernels()
    progress.step(COMPILE_TASK, 1, 1)
    return True


__all__ = [
    "COMPILE_SECONDS",
    "COMPILE_TASK",
    "KERNEL_MODULES",
    "cold_kernels",
    "compile_kernels",
    "prepare_kernels",
]

"""numba's parallel kernels give the same numbers on one thread and on two.

The suite's xdist workers run numba on one thread each (``conftest.py``, decision D89), so without
this file the ``prange`` kernels (face draws, rank and permutation tests, bootstrap replicates and
intervals, the power simulations, the probe's twin bootstrap) would never run on two threads in
CI. A process started with ``NUMBA_NUM_THREADS=2`` runs each kernel with ``numba.set_num_threads``
1 and 2 on inputs large enough that the two threads overlap (a row scratch shared across threads,
a race, shows here), and every output must be equal, value for value.
"""

from __future__ import annotations

import os
import subprocess
import sys

SCRIPT = r"""
import numba
import numpy as np

from cueshift.designs.probe.twin_bootstrap import replicate_similarities
from cueshift.power.draws import batch_phi
from cueshift.stats import (
    face_multiplicities, kruskal_columns, label_permutation_test, mann_whitney_columns,
    sign_flip_test, signed_rank_columns,
)
from cueshift.stats._bootstrap_intervals import _jackknife_acceleration
from cueshift.stats._replicate_kernels import row_moments, share_below

assert numba.config.NUMBA_NUM_THREADS == 2, numba.config.NUMBA_NUM_THREADS
rng = np.random.default_rng(11)
wide = rng.normal(0.1, 1.0, size=(60, 400))
wide[:8] = np.round(wide[:8])  # ties and zeros: the exact sign-flip kernel
small = rng.normal(0.2, 1.0, size=(12, 300))
small[small < -1.2] = 0.0
labels = np.repeat(np.arange(3), 20).astype(np.int64)
rep = rng.normal(size=(400, 2000))
model, twin, human = rng.normal(size=(3, 40, 6))
weights = face_multiplicities(40, 300, 1)
p_favorable, uniforms = rng.random((200, 50, 30)), rng.random((200, 2, 1500))
kernels = {
    "face_multiplicities": lambda: face_multiplicities(300, 20_000, np.random.default_rng(7)),  # uncached
    "signed_rank_columns": lambda: np.concatenate(
        [signed_rank_columns(wide).p_value, signed_rank_columns(small).p_value]
    ),
    "kruskal_columns": lambda: kruskal_columns(wide, labels, 3).p_value,
    "mann_whitney_columns": lambda: mann_whitney_columns(wide[:40], labels[:40] % 2).p_value,
    "sign_flip_test": lambda: sign_flip_test(wide, n_resamples=999, seed=2),
    "label_permutation_test": lambda: label_permutation_test(wide, labels, 3, n_resamples=499, seed=2),
    "share_below": lambda: share_below(rep, rep.mean(axis=1)),
    "row_moments": lambda: row_moments(rep),
    "jackknife_acceleration": lambda: _jackknife_acceleration(wide),
    "batch_phi": lambda: batch_phi(p_favorable, 12, 0.05, uniforms),
    "replicate_similarities": lambda: replicate_similarities(model, twin, human, np.empty((40, 0)), weights),
}
def flat(out):
    parts = out if isinstance(out, tuple) else (out,)
    return np.concatenate([np.ravel(np.asarray(part, dtype=float)) for part in parts])

differ = []
for name, kernel in kernels.items():
    numba.set_num_threads(1)
    one = flat(kernel())
    numba.set_num_threads(2)
    two = flat(kernel())
    if one.shape != two.shape or not np.array_equal(one, two, equal_nan=True):
        differ.append(name)
print("differ:", ",".join(differ))
"""


def test_each_parallel_kernel_gives_the_same_numbers_on_one_and_two_threads() -> None:
    env = {**os.environ, "NUMBA_NUM_THREADS": "2"}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=600
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "differ:", done.stdout

"""Constant data: statistics whose spread is exactly zero, where rounding makes it noise (D49).

Every value of a cell equal: a spread computed from sums is rounding noise, not 0, and a test of
"is it zero?" on it gives F = 3, t = 1e16 or NaN intervals. Each statistic here is checked on
such cells at several sizes (the sizes where rounding put every replicate on one side of the
estimate) against the exact answer: the point as the interval, or scipy's value where scipy
defines one.
"""

from __future__ import annotations

import numpy as np
import pytest

from cueshift.stats import CIMethod, crossed_bootstrap, face_multiplicities, scenario_multiplicities

SCALE = 27720.0  # COMMON_DENOMINATOR: Δ · SCALE is an integer


def _constant_row(n_faces: int, n_scen: int, value: float) -> tuple[np.ndarray, np.ndarray]:
    """Integer sums and unequal counts (1 to 3 judgments) per face × scenario, every Δ = value."""
    counts = np.random.default_rng(n_faces).integers(1, 4, (n_faces, 1, n_scen)).astype(np.float64)
    return np.rint(counts * value * SCALE), counts


@pytest.mark.parametrize("method", ["bca", "percentile"])
@pytest.mark.parametrize("redrawn", [True, False])
def test_crossed_bootstrap_of_a_constant_row_is_the_point(method: CIMethod, redrawn: bool) -> None:
    """Each replicate of Δ = 0.1 (or 0.3, 1/7) everywhere is that value but for the rounding of
    its sums, which put every replicate on one side of the estimate for 42, 43, 44, 47, 72, 80, ...
    faces: BCa's z0 was infinite and its interval NaN, the percentile interval excluded the point."""
    n_scen, n_rep = 5, 200
    for value, sizes in ((0.1, (42, 43, 44, 45, 47, 96)), (0.3, (64, 72, 80)), (1 / 7, (24, 48, 56))):
        for n in sizes:
            sums, counts = _constant_row(n, n_scen, value)
            w = face_multiplicities(n, n_rep, 1)
            v = scenario_multiplicities(n_scen, n_rep, 1) if redrawn else np.ones((n_rep, n_scen))
            boot = crossed_bootstrap(sums, counts, SCALE, w, v, method=method)
            assert boot.estimate[0] == pytest.approx(value, rel=1e-13)
            assert boot.ci_low[0] == boot.estimate[0] == boot.ci_high[0], (value, n)


def test_crossed_bootstrap_of_equal_face_means_over_varying_scenarios_is_not_the_point() -> None:
    """Every face has the same mean, but its scenarios differ (0.2 and 0.0 in turn): redrawing the
    scenarios moves the estimate, so only the faces-only bootstrap has a zero-width interval."""
    n, n_scen, n_rep = 45, 4, 400
    counts = np.ones((n, 1, n_scen))
    sums = np.rint(np.tile([0.2, 0.0, 0.2, 0.0], (n, 1))[:, None, :] * SCALE)
    w = face_multiplicities(n, n_rep, 2)
    crossed = crossed_bootstrap(sums, counts, SCALE, w, scenario_multiplicities(n_scen, n_rep, 2))
    faces = crossed_bootstrap(sums, counts, SCALE, w, np.ones((n_rep, n_scen)))
    assert crossed.ci_high[0] - crossed.ci_low[0] > 0.05
    assert faces.ci_low[0] == faces.estimate[0] == faces.ci_high[0]

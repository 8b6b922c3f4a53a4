"""Cohen's κ and the face-clustered paired difference against statsmodels (independent references)."""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm
from statsmodels.stats.inter_rater import cohens_kappa as sm_kappa

from cueshift.stats.agreement import cohens_kappa, paired_difference

LABELS = ("favorable", "unfavorable", "invalid")


@pytest.mark.parametrize("seed", range(5))
def test_kappa_equals_statsmodels(seed: int) -> None:
    rng = np.random.default_rng(seed)
    first = rng.choice(LABELS, size=200, p=[0.5, 0.4, 0.1])
    flip = rng.random(200) < 0.2
    second = np.where(flip, rng.choice(LABELS, size=200), first)
    table = np.zeros((3, 3))
    for a, b in zip(first, second, strict=True):
        table[LABELS.index(a), LABELS.index(b)] += 1
    expected = float(sm_kappa(table, return_results=False))
    assert cohens_kappa(list(first), list(second)) == pytest.approx(expected, abs=1e-12)


def test_kappa_of_identical_labels_is_one_and_of_one_label_undefined() -> None:
    assert cohens_kappa(["a", "b", "b"], ["a", "b", "b"]) == pytest.approx(1.0)
    assert cohens_kappa(["a"] * 4, ["a"] * 4) is None
    with pytest.raises(ValueError):
        cohens_kappa(["a"], ["a", "b"])


@pytest.mark.parametrize("seed", range(3))
def test_paired_difference_equals_clustered_ols(seed: int) -> None:
    rng = np.random.default_rng(seed)
    faces = np.repeat([f"f{i}" for i in range(12)], 8)
    x = rng.integers(0, 2, faces.size).astype(float)
    y = np.where(rng.random(faces.size) < 0.3, 1.0 - x, x)
    ours = paired_difference(list(x), list(y), list(faces))
    groups = np.unique(faces, return_inverse=True)[1]
    fit = sm.OLS(y - x, np.ones((faces.size, 1))).fit(
        cov_type="cluster", cov_kwds={"groups": groups}, use_t=True
    )
    low, high = fit.conf_int(0.05)[0]
    assert ours.estimate == pytest.approx(fit.params[0])
    assert ours.se == pytest.approx(fit.bse[0], rel=1e-10)
    assert (ours.ci_low, ours.ci_high) == pytest.approx((low, high), rel=1e-10)


def test_paired_difference_of_equal_answers_is_a_zero_interval() -> None:
    d = paired_difference([1, 0, 1], [1, 0, 1], ["f1", "f2", "f3"])
    assert (d.estimate, d.ci_low, d.ci_high, d.n_clusters) == (0.0, 0.0, 0.0, 3)

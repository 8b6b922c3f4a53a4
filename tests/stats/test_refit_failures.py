"""Bootstrap refits of the mixed models that admit no estimates (D62): a draw of one distinct face
or of equal values only is a failed draw, counted (``n_refits``) and left out of the interval,
and with more than α/2 of the draws failed there is no interval. Planted data; which draws must
fail is read off the faces drawn, independently of the refit."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from cueshift.stats import crossed_model, mixed_model
from cueshift.stats._effect_intervals import refit_interval, refit_replicates
from cueshift.stats._face_draws import face_multiplicities
from cueshift.stats._mixed import FACTORS
from cueshift.stats._model_terms import cell_blocks
from cueshift.stats._reml import reml_fit

N_REFITS, SEED = 200, 3


def _cells(n_faces: int, varying: set[int], *, scenarios: int = 2) -> pl.DataFrame:
    """Faces × 3 variation categories × 2 scenario categories × ``scenarios`` scenarios each; the
    faces in ``varying`` have normal Δ, the others Δ = 0.1 in every cell."""
    rng = np.random.default_rng(11)
    rows = [
        {
            "face_id": f"f{face}",
            "variation_category": variation,
            "scenario_category": category,
            "scenario_id": f"{category}{k}",
            "delta": float(rng.normal(0.2, 0.3)) if face in varying else 0.1,
        }
        for face in range(n_faces)
        for variation in ("a", "b", "c")
        for category in ("x", "y")
        for k in range(scenarios)
    ]
    return pl.DataFrame(rows)


def _drawn(n_faces: int) -> np.ndarray:
    """Which faces each refit draws (the draws of ``refit_replicates``: the same faces, seed)."""
    return face_multiplicities(n_faces, N_REFITS, SEED) > 0


def test_draws_without_the_varying_face_are_failed_refits() -> None:
    # Faces 0-2 constant, face 3 varies: a draw without face 3 has every Δ equal (0.1), whose refit
    # divided rounding noise (η²p = 1 in about a third of the draws, pulling the interval up).
    cells = _cells(4, {3})
    blocks = cell_blocks(cells, FACTORS)
    replicates = refit_replicates(blocks, FACTORS, reml_fit(blocks).theta, n_refits=N_REFITS, seed=SEED)
    drawn = _drawn(4)
    must_fail = ~drawn[:, 3] | (drawn.sum(axis=1) < 2)
    assert 40 < must_fail.sum() < 100  # (3/4)^4 of 200 ≈ 63
    assert np.isnan(replicates[:, must_fail]).all()
    assert np.isfinite(replicates[:, ~must_fail]).all()


@pytest.mark.parametrize("model", ["mixed", "crossed"])
@pytest.mark.parametrize(("n_faces", "varying"), [(4, {3}), (2, {0, 1})])
def test_many_failed_refits_give_no_interval_and_their_count(
    model: str, n_faces: int, varying: set[int]
) -> None:
    # 4 faces, one varying: a third of the draws have every Δ equal; 2 faces: half the draws hold one
    # face twice (its variance from copies of one face). Both well above α/2 = 2.5 % of the draws.
    cells = _cells(n_faces, varying)
    if model == "mixed":
        cells = cells.group_by("face_id", *FACTORS).agg(pl.col("delta").mean())
        result = mixed_model(cells, cells=cells, estimator="reml", n_resamples=N_REFITS, seed=SEED)
    else:
        result = crossed_model(cells, cells=cells, n_resamples=N_REFITS, seed=SEED, max_refits=N_REFITS)
    drawn = _drawn(n_faces)
    fails = (drawn.sum(axis=1) < 2) | ~drawn[:, sorted(varying)].any(axis=1)
    assert fails.mean() > 0.025
    assert result["ci_low"].null_count() == result["ci_high"].null_count() == 4
    assert result["n_refits"].to_list() == [int((~fails).sum())] * 4
    assert result["estimate"].is_not_null().all()


def test_few_failed_refits_leave_them_out_of_the_interval() -> None:
    # 200 replicates 0.00, 0.005, ..., of which k are failed draws (NaN): up to 5 (α/2 of 200) the
    # interval is the bias-shifted percentile interval of the others, computed here by hand.
    values = np.linspace(0.0, 0.995, N_REFITS)
    estimate = np.array([0.4])
    for failed in (0, 5):
        replicates = values.copy()[None, :]
        replicates[0, 1 : 1 + failed] = np.nan
        kept = np.delete(values, np.arange(1, 1 + failed))
        q_low, q_high = np.quantile(kept, [0.025, 0.975])
        shift = 2.0 * (kept.mean() - 0.4)
        low, high, n_fitted = refit_interval(estimate, replicates, 0.95)
        assert n_fitted == N_REFITS - failed
        assert low[0] == pytest.approx(max(q_low - shift, 0.0), abs=1e-12)
        assert high[0] == pytest.approx(min(q_high - shift, 1.0), abs=1e-12)
    replicates = values.copy()[None, :]
    replicates[0, :6] = np.nan
    low, high, n_fitted = refit_interval(estimate, replicates, 0.95)
    assert n_fitted == 194 and np.isnan(low[0]) and np.isnan(high[0])
    low, high, _ = refit_interval(estimate, replicates, 0.9)  # α/2 = 5 % of 200 = 10 may fail
    assert np.isfinite(low[0]) and np.isfinite(high[0])

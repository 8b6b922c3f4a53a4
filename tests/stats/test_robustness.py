"""The robustness value (Cinelli & Hazlett 2020) against independent references: the paper's
Darfur example, a brute-force search of the omitted-variable bound it solves, and planted
confounders whose long regression statsmodels fits."""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import stats

from cueshift._types import F64, I64
from cueshift.stats import face_robustness, partial_r2, robustness_value


def test_the_darfur_example() -> None:
    # Cinelli & Hazlett (2020) §5, sensemakr's vignette: directlyharmed, estimate 0.0973,
    # se 0.0233 (t 4.18), 783 df: partial R2 2.2 %, RV 13.9 %, RV at alpha 0.05 7.6 %
    t, df = 0.09731582 / 0.02325654, 783
    assert round(float(partial_r2(t, df)), 3) == 0.022
    assert round(float(robustness_value(t, df)), 3) == 0.139
    assert round(float(robustness_value(t, df, alpha=0.05)), 3) == 0.076
    assert round(float(robustness_value(t, df, q=0.5)), 3) == 0.072  # halving the estimate


def _smallest_strength(t: float, df: int, q: float, alpha: float | None) -> float:
    """Brute force: the least m such that a confounder with both partial R2 at most m brings the
    (1 - alpha) bound of the adjusted estimate to (1 - q) of it; the bias and standard error of
    the adjusted estimate are Cinelli & Hazlett's (2020) eq. 4-5 in partial R2."""
    fq = q * abs(t) / np.sqrt(df)
    f_crit = 0.0 if alpha is None else abs(stats.t.ppf(alpha / 2, df - 1)) / np.sqrt(df - 1)
    r_y = np.linspace(0.0, 1.0, 20001)
    lo, hi = 0.0, 1.0
    for _ in range(60):
        m = (lo + hi) / 2
        ry = np.minimum(r_y, m)
        reached = fq - np.sqrt(ry * m / (1 - m)) <= f_crit * np.sqrt((1 - ry) / (1 - m))
        lo, hi = (lo, m) if reached.any() else (m, hi)
    return hi


@pytest.mark.parametrize(
    ("t", "df", "q", "alpha"),
    [
        (4.18, 783, 1.0, None),
        (4.18, 783, 1.0, 0.05),
        (3.0, 10, 1.0, 0.05),
        (20.0, 10, 1.0, 0.05),
        (50.0, 20, 0.5, 0.05),
        (2.5, 200, 0.5, 0.1),
        (1.5, 50, 1.0, 0.05),
        (-6.0, 40, 1.0, 0.01),
        (2.0, 3, 1.0, 0.05),  # f* > 1: 1/f* < f_q < f*, not significant
        (8.0, 3, 1.0, 0.05),
        (30.0, 4, 1.0, 0.05),
    ],
)
def test_the_closed_form_is_the_least_strength_that_reaches_the_bound(
    t: float, df: int, q: float, alpha: float | None
) -> None:
    # (20, 10), (50, 20) and (30, 4) are past 1/f*: the bound is reached by a confounder weaker
    # with the outcome than with the cue, the closed form's third case; (1.5, 50) and (2, 3) are
    # not significant
    expected = _smallest_strength(t, df, q, alpha)
    assert float(robustness_value(t, df, q=q, alpha=alpha)) == pytest.approx(expected, abs=1e-6)


def _planted(d: F64, y: F64, x: F64, r2_d: float, r2_y: float, sign: float, seed: int) -> F64:
    """A confounder with exactly these partial R2 with the cue (given x) and the judgment (given
    cue and x): Z = a D~ + b Y~ + c W, D~ and Y~ the residuals, W noise orthogonal to both."""
    rng = np.random.default_rng(seed)

    def residual(v: F64, on: F64) -> F64:
        return np.asarray(v - on @ np.linalg.lstsq(on, v, rcond=None)[0], dtype=np.float64)

    dr = residual(d, x)
    yr = residual(y, np.column_stack([x, d]))
    w = residual(rng.normal(size=d.size), np.column_stack([x, d, y]))
    unit = [v / np.linalg.norm(v) for v in (dr, yr, w)]
    b2 = r2_y * (1 - r2_d)
    z = sign * np.sqrt(r2_d) * unit[0] + np.sqrt(b2) * unit[1] + np.sqrt(1 - r2_d - b2) * unit[2]
    return np.asarray(z, dtype=np.float64)


def _cue_data(n_faces: int, shift: float, seed: int) -> tuple[F64, F64, F64, I64]:
    """Base and edited image per face: judgment y, cue d, face dummies x, face codes."""
    rng = np.random.default_rng(seed)
    face = np.repeat(np.arange(n_faces, dtype=np.int64), 2)
    d = np.tile(np.array([0.0, 1.0]), n_faces)
    y = rng.normal(0, 1, n_faces)[face] + shift * d + rng.normal(0, 0.5, face.size)
    return np.asarray(y, dtype=np.float64), d, np.eye(n_faces)[face], face


def test_a_confounder_at_the_robustness_value_erases_the_shift() -> None:
    y, d, x, _ = _cue_data(60, 0.3, seed=1)
    short = sm.OLS(y, np.column_stack([d, x])).fit()
    t, df = float(short.tvalues[0]), int(short.df_resid)
    rv, rv_alpha = float(robustness_value(t, df)), float(robustness_value(t, df, alpha=0.05))
    assert 0 < rv_alpha < rv < 1
    adverse = np.sign(short.params[0])  # moves with the cue the way the shift goes: explains it away
    at_rv = sm.OLS(y, np.column_stack([d, x, _planted(d, y, x, rv, rv, adverse, 2)])).fit()
    assert at_rv.params[0] == pytest.approx(0.0, abs=1e-9)
    at_alpha = sm.OLS(y, np.column_stack([d, x, _planted(d, y, x, rv_alpha, rv_alpha, adverse, 3)])).fit()
    assert at_alpha.pvalues[0] == pytest.approx(0.05, rel=1e-6)
    for seed in range(40):  # weaker on one side or both: the shift survives; stronger on both: erased
        r2_d, r2_y = np.random.default_rng(seed).uniform(0.0, min(0.99, 2 * rv), 2)
        long = sm.OLS(y, np.column_stack([d, x, _planted(d, y, x, r2_d, r2_y, adverse, seed)])).fit()
        if max(r2_d, r2_y) < rv:
            assert np.sign(long.params[0]) == np.sign(short.params[0])
        if min(r2_d, r2_y) > rv:
            assert np.sign(long.params[0]) != np.sign(short.params[0])
        if max(r2_d, r2_y) < rv_alpha:
            assert long.pvalues[0] < 0.05


def _side_effect(shift: float, mean: float, effect: float, seed: int) -> tuple[float, float, float, float]:
    """Faces judged before and after an edit whose side effect z (only on the edited image)
    moves the judgment by ``effect`` z: the shift's face-level robustness value, the side
    effect's partial R2 with cue and judgment (statsmodels fits), and the shift without and with
    z in the fit; the face-level model is checked to be the cue-with-face-effects fit."""
    y, d, x, face = _cue_data(80, shift, seed=seed)
    z = d * np.random.default_rng(seed + 1).normal(mean, 0.3, 80)[face]
    y = y + effect * z
    short = sm.OLS(y, np.column_stack([d, x])).fit()
    face_level = face_robustness((y[d == 1] - y[d == 0])[:, None])  # each face's shift
    assert face_level.statistic[0] == pytest.approx(short.tvalues[0], rel=1e-9)
    assert face_level.df[0] == short.df_resid
    long = sm.OLS(y, np.column_stack([d, x, z])).fit()
    on_cue = sm.OLS(d, np.column_stack([x, z])).fit()
    r2_d = float(partial_r2(on_cue.tvalues[-1], on_cue.df_resid))
    r2_y = float(partial_r2(long.tvalues[-1], long.df_resid))
    bias = short.bse[0] * np.sqrt(short.df_resid) * np.sqrt(r2_y * r2_d / (1 - r2_d))
    assert abs(short.params[0] - long.params[0]) == pytest.approx(bias, rel=1e-9)  # C&H eq. in R2
    return float(face_level.rv[0]), max(r2_d, r2_y), float(short.params[0]), float(long.params[0])


def test_a_planted_side_effect_that_makes_the_shift() -> None:
    # no true shift: a side effect of the edit (expression, lighting) with a mean makes one; it
    # erases nothing unless one of its partial R2 exceeds the robustness value
    rv, strongest, without, adjusted = _side_effect(0.0, mean=0.5, effect=1.0, seed=8)
    assert without > 0.3 and abs(adjusted) < without / 2  # the side effect made most of it
    assert strongest > rv


@pytest.mark.parametrize("seed", range(5))
def test_a_planted_side_effect_below_the_robustness_value_leaves_the_shift(seed: int) -> None:
    rv, strongest, without, adjusted = _side_effect(0.4, mean=0.05, effect=0.3, seed=10 + seed)
    assert strongest < rv and without > 0.2
    assert np.sign(adjusted) == np.sign(without)


def test_face_robustness_leaves_out_columns_it_cannot_fit() -> None:
    values = np.array([[0.1, 0.2, np.nan], [0.3, 0.2, 0.1], [0.2, 0.2, 0.3], [0.4, 0.2, np.nan]])
    res = face_robustness(values)
    assert np.isfinite(res.rv[0]) and np.isnan(res.rv[1]) and np.isnan(res.rv[2])  # equal; 2 faces
    assert np.isnan(res.df[1]) and res.df[0] == 3


@pytest.mark.parametrize("n", [3, 7, 37])
def test_face_robustness_of_equal_nonzero_values_is_undefined(n: int) -> None:
    """n copies of 0.1 have a sample sd of about 1e-17 (rounding), not 0: t = 1e16 and RV = 1 before."""
    res = face_robustness(np.full((n, 1), 0.1))
    assert np.isnan(res.statistic[0]) and np.isnan(res.rv[0]) and np.isnan(res.rv_alpha[0])


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="q must be"):
        robustness_value(2.0, 10, q=0.0)
    with pytest.raises(ValueError, match="alpha"):
        robustness_value(2.0, 10, alpha=1.5)
    with pytest.raises(ValueError, match="df"):
        robustness_value(2.0, 1, alpha=0.05)

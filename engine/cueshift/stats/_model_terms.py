"""From cells to a REML fit and back to Table 10's quantities: the treatment-coded design, the face
blocks of :mod:`._reml`, and per-factor Wald F, partial η² and Nakagawa R² of a fit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy import special

from cueshift._types import F64
from cueshift.stats._equal_values import all_equal
from cueshift.stats._reml import FaceBlocks, RemlFit, face_blocks

#: R² rows of a model table, in order.
R2_TERMS = ("R2_marginal", "R2_conditional")


@dataclass(frozen=True)
class TermValues:
    """Per factor: Wald F, numerator df; the residual df; partial η² per factor then R²m, R²c."""

    statistic: F64
    df: F64
    df_resid: float
    estimates: F64


def treatment_design(cells: pl.DataFrame, factors: Sequence[str]) -> tuple[F64, tuple[str, ...]]:
    """Intercept plus treatment-coded indicators of each factor (baseline: its first level in sorted
    order, as patsy's ``C(factor)``); names ``C(factor)[T.level]``."""
    columns, names = [np.ones(cells.height)], ["Intercept"]
    for factor in factors:
        values = cells[factor].to_numpy()
        for level in sorted(set(values.tolist()))[1:]:
            columns.append((values == level).astype(np.float64))
            names.append(f"C({factor})[T.{level}]")
    return np.column_stack(columns), tuple(names)


def _codes(values: pl.Series) -> tuple[np.ndarray, int]:
    levels = values.unique().sort()
    lookup = {v: i for i, v in enumerate(levels.to_list())}
    return np.array([lookup[v] for v in values.to_list()], dtype=np.int64), levels.len()


def cell_blocks(
    cells: pl.DataFrame, factors: Sequence[str], *, value: str = "delta", crossed: str | None = None
) -> FaceBlocks:
    """Face blocks of ``value ~ factors + (1 | face_id) [+ (1 | crossed)]`` on ``cells``; faces are
    indexed in sorted ``face_id`` order."""
    fixed, names = treatment_design(cells, factors)
    faces, n_faces = _codes(cells["face_id"])
    other, n_other = _codes(cells[crossed]) if crossed else (None, 0)
    return face_blocks(
        cells[value].to_numpy().astype(np.float64), fixed, faces, n_faces, other, n_other, names
    )


def unfit_reason(cells: pl.DataFrame, *, value: str = "delta", crossed: str | None = None) -> str | None:
    """Why the random-intercept model of ``cells`` has no estimates, or None: every cell equal
    (compared exactly; the fit would divide rounding noise: F = 1e271, or statsmodels' division
    by zero), a single face (its variance is not identified), or, with ``crossed``, one scenario
    per scenario category (the scenario variance is the category effect).

    Examples
    --------
    >>> unfit_reason(pl.DataFrame({"face_id": ["a", "b"], "delta": [0.1, 0.1]}))
    'every cell has the same Δ (0.1): F, partial η² and R² are 0/0'
    """
    y = cells[value].to_numpy()
    if all_equal(y):
        return f"every cell has the same Δ ({y[0]:g}): F, partial η² and R² are 0/0"
    if cells["face_id"].n_unique() < 2:
        return "a single face: the face variance is not identified"
    if crossed and cells.group_by("scenario_category").agg(pl.col(crossed).n_unique())[crossed].max() == 1:
        return f"one {crossed} per scenario_category: the {crossed} variance is not identified"
    return None


def term_values(fit: RemlFit, names: Sequence[str], factors: Sequence[str]) -> TermValues:
    r"""Wald :math:`F = \hat\beta_J^\top \hat V_J^{-1}\hat\beta_J / q` per factor on :math:`q` and
    :math:`N - p` df, :math:`\eta^2_p = Fq/(Fq + N - p)`, and Nakagawa & Schielzeth's
    :math:`R^2_m = \sigma^2_f/\sigma^2_{tot}`, :math:`R^2_c = (\sigma^2_f + \sum_k\sigma^2_k)/\sigma^2_{tot}`
    with :math:`\sigma^2_{tot} = \sigma^2_f + \sum_k \sigma^2_k + \sigma^2_\varepsilon` over the
    random intercepts :math:`k` (see :func:`cueshift.stats.mixed_model`)."""
    df_resid = fit.n - len(names)
    statistic, df, estimates = [], [], []
    for factor in factors:
        idx = [i for i, name in enumerate(names) if name.startswith(f"C({factor})")]
        b, v = fit.beta[idx], fit.cov_beta[np.ix_(idx, idx)]
        f = float(b @ np.linalg.solve(v, b)) / len(idx)
        statistic.append(f)
        df.append(float(len(idx)))
        estimates.append(f * len(idx) / (f * len(idx) + df_resid))
    random = fit.var_face + fit.var_other
    total = fit.var_fixed + random + fit.var_resid
    estimates += [fit.var_fixed / total, (fit.var_fixed + random) / total]
    return TermValues(np.array(statistic), np.array(df), df_resid, np.array(estimates))


def wald_p_values(values: TermValues) -> F64:
    """Upper-tail F probabilities of the Wald statistics."""
    return np.asarray(special.fdtrc(values.df, values.df_resid, values.statistic), dtype=np.float64)

"""Table 10's mixed model with crossed random intercepts for faces and scenarios: fixed effects,
R² and the variance components with each source's share."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import polars as pl

from cueshift.stats._checked import returns
from cueshift.stats._effect_intervals import refit_interval, refit_replicates
from cueshift.stats._faces import group_means
from cueshift.stats._mixed import FACTORS
from cueshift.stats._model_terms import R2_TERMS, cell_blocks, term_values, unfit_reason, wald_p_values
from cueshift.stats._registry import NotApplicable
from cueshift.stats._reml import FaceBlocks, RemlFit, reml_fit
from cueshift.stats._settings import DEFAULT_RESAMPLES

SCENARIO = "scenario_id"
#: Most bootstrap refits of the crossed model (a two-parameter REML refit costs tens of
#: milliseconds at paper scale, against a few for Table 10's one-parameter model).
CROSSED_REFITS = 100


def crossed_model_cells(
    delta: pl.DataFrame, *, category_map: Mapping[str, str] | None = None, crossed: str = SCENARIO
) -> pl.DataFrame:
    """Δ averaged per face × variation category × scenario (with its category) over models and
    values: the cells of :func:`crossed_model` (one value per face and scenario per category, so
    the scenario intercepts are identified and paper scale is 500 × 11 × 25 cells); ``category_map``
    as in :func:`cueshift.stats.mixed_model_cells`."""
    data = delta.filter(pl.col("delta").is_not_null() & pl.col("delta").is_not_nan()).with_columns(
        pl.col("variation_category").replace(dict(category_map or {}))
    )
    keys = ("face_id", *FACTORS, crossed)
    return group_means(data, keys, "delta").drop("n").sort(keys)  # exact: the same in any row order


def _fit(
    delta: pl.DataFrame,
    category_map: Mapping[str, str] | None,
    crossed: str,
    cells: pl.DataFrame | None = None,
) -> tuple[pl.DataFrame, FaceBlocks, RemlFit] | None:
    if cells is None:
        cells = crossed_model_cells(delta, category_map=category_map, crossed=crossed)
    if cells.height == 0 or min(cells[f].n_unique() for f in FACTORS) < 2:
        return None
    if (reason := unfit_reason(cells, crossed=crossed)) is not None:
        raise NotApplicable(reason)  # every Δ equal, one face, or one scenario per category
    blocks = cell_blocks(cells, FACTORS, crossed=crossed)
    return cells, blocks, reml_fit(blocks)


@returns("crossed_model")
def crossed_model(
    delta: pl.DataFrame,
    *,
    category_map: Mapping[str, str] | None = None,
    crossed: str = SCENARIO,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    confidence_level: float = 0.95,
    max_refits: int = CROSSED_REFITS,
    cells: pl.DataFrame | None = None,
) -> pl.DataFrame:
    r"""Table 10's model with crossed random intercepts for faces and scenarios:

    .. math::

        \Delta_{fvs} = \mu + \alpha_{v} + \gamma_{c(s)} + u_f + w_s + \varepsilon_{fvs},\quad
        u_f \sim N(0, \sigma^2_u),\ w_s \sim N(0, \sigma^2_w),

    on :func:`crossed_model_cells` (scenario :math:`s` in category :math:`c(s)`, a fixed effect as
    in :func:`cueshift.stats.mixed_model`). REML by :func:`cueshift.stats._reml.reml_fit`
    (the same estimates as statsmodels' ``MixedLM`` with variance components
    ``{"face": "0 + C(face_id)", "scenario": "0 + C(scenario_id)"}`` in one group — tested on a
    small frame — which took 290 s on the 10,000 cells of 40 simulated faces on this shared 2-core
    machine, against a tenth of a second here, where the faces are eliminated per face in closed
    form; paper scale is 125,000 cells). Rows as
    :func:`cueshift.stats.mixed_model` — Wald F and η²p per factor, Nakagawa R²m/R²c with both
    intercept variances in the conditional part — and the same bootstrap intervals (faces
    resampled, scenarios held fixed: the intervals do not count the scenarios' sampling) on at
    most ``max_refits`` refits, failed draws left out and counted as there (``n_refits``: the
    refits behind the interval). ``cells``: :func:`crossed_model_cells` of ``delta`` (same
    ``category_map`` and ``crossed``) already computed; the rows are then not read. Cells without
    estimates raise :class:`~cueshift.stats.NotApplicable` as in :func:`cueshift.stats.mixed_model`
    (also where each scenario category has one scenario: its variance is not identified).

    References
    ----------
    .. [1] Baayen, R. H., Davidson, D. J. & Bates, D. M. (2008). Mixed-effects modeling with crossed
       random effects for subjects and items. *J. Mem. Lang.* 59, 390–412.
    .. [2] Nakagawa, S., Johnson, P. C. D. & Schielzeth, H. (2017). The coefficient of determination
       R² and intra-class correlation coefficient from generalized linear mixed-effects models
       revisited and expanded. *J. R. Soc. Interface* 14, 20170213.
    """
    fitted = _fit(delta, category_map, crossed, cells)
    if fitted is None:
        return pl.DataFrame(schema=_CROSSED_SCHEMA)
    cells, blocks, fit = fitted
    values = term_values(fit, blocks.names, FACTORS)
    n_refits = max(0, min(n_resamples, max_refits))
    low = high = np.full(values.estimates.size, np.nan)
    if n_refits:
        replicates = refit_replicates(blocks, FACTORS, fit.theta, n_refits=n_refits, seed=seed)
        low, high, n_refits = refit_interval(values.estimates, replicates, confidence_level)
    k = len(FACTORS)
    none = [None] * len(R2_TERMS)
    return pl.DataFrame(
        {
            "term": [*FACTORS, *R2_TERMS],
            "test": ["wald-F"] * k + ["nakagawa-r2"] * len(R2_TERMS),
            "statistic": [*values.statistic.tolist(), *none],
            "df": [*values.df.tolist(), *none],
            "df_resid": [values.df_resid] * k + none,
            "p": [*wald_p_values(values).tolist(), *none],
            "estimate": values.estimates,
            "ci_low": low,
            "ci_high": high,
            "n_levels": [int(d) + 1 for d in values.df] + none,
            "n": int(fit.n),
            "n_faces": cells["face_id"].n_unique(),
            "n_scenarios": cells[crossed].n_unique(),
            "var_face": fit.var_face,
            "var_scenario": fit.var_other,
            "var_resid": fit.var_resid,
            "var_fixed": fit.var_fixed,
            "n_refits": n_refits,
            "converged": fit.converged,
        },
        schema=_CROSSED_SCHEMA,
    ).with_columns(pl.col(pl.Float64).fill_nan(None))


@returns("variance_components")
def variance_components(
    delta: pl.DataFrame,
    *,
    category_map: Mapping[str, str] | None = None,
    crossed: str = SCENARIO,
    model: pl.DataFrame | None = None,
) -> pl.DataFrame:
    r"""Variance components of :func:`crossed_model` and each source's share of the variance.

    Rows ``face`` (:math:`\hat\sigma^2_u`), ``scenario`` (:math:`\hat\sigma^2_w`), ``residual``
    (:math:`\hat\sigma^2_\varepsilon`) and ``fixed`` (:math:`\sigma^2_f = \operatorname{var}(X\hat\beta)`,
    the variation and scenario categories); ``estimate`` = the variance, ``sd`` its root,
    ``share`` = variance / (sum of the four) — so face + scenario + fixed shares add to R²c and
    the fixed share is R²m (Nakagawa & Schielzeth 2013) — and ``share_random`` = variance /
    (:math:`\sigma^2_u + \sigma^2_w + \sigma^2_\varepsilon`, the variance partition coefficient
    of the random part; null on the fixed row). ``n_levels``: faces, scenarios; ``n``: cells.
    ``model``: a :func:`crossed_model` table of the same ``delta`` to read the variances from
    instead of fitting again.
    """
    if model is None:
        fitted = _fit(delta, category_map, crossed)
        if fitted is None:
            return pl.DataFrame(schema=_COMPONENTS_SCHEMA)
        cells, _, fit = fitted
        variances = np.array([fit.var_face, fit.var_other, fit.var_resid, fit.var_fixed])
        n_faces, n_scenarios, n, converged = (
            cells["face_id"].n_unique(),
            cells[crossed].n_unique(),
            cells.height,
            fit.converged,
        )
    elif model.height == 0:
        return pl.DataFrame(schema=_COMPONENTS_SCHEMA)
    else:
        row = model.row(0, named=True)
        variances = np.array([row["var_face"], row["var_scenario"], row["var_resid"], row["var_fixed"]])
        n_faces, n_scenarios, n, converged = row["n_faces"], row["n_scenarios"], row["n"], row["converged"]
    random = variances[:3].sum()
    return pl.DataFrame(
        {
            "source": ["face", "scenario", "residual", "fixed"],
            "estimate": variances,
            "sd": np.sqrt(variances),
            "share": variances / variances.sum(),
            "share_random": [*(variances[:3] / random).tolist(), None],
            "n_levels": [n_faces, n_scenarios, None, None],
            "n": n,
            "converged": converged,
        },
        schema=_COMPONENTS_SCHEMA,
    )


_CROSSED_SCHEMA: dict[str, pl.DataType] = {
    "term": pl.String(),
    "test": pl.String(),
    "statistic": pl.Float64(),
    "df": pl.Float64(),
    "df_resid": pl.Float64(),
    "p": pl.Float64(),
    "estimate": pl.Float64(),
    "ci_low": pl.Float64(),
    "ci_high": pl.Float64(),
    "n_levels": pl.Int64(),
    "n": pl.Int64(),
    "n_faces": pl.Int64(),
    "n_scenarios": pl.Int64(),
    "var_face": pl.Float64(),
    "var_scenario": pl.Float64(),
    "var_resid": pl.Float64(),
    "var_fixed": pl.Float64(),
    "n_refits": pl.Int64(),
    "converged": pl.Boolean(),
}
_COMPONENTS_SCHEMA: dict[str, pl.DataType] = {
    "source": pl.String(),
    "estimate": pl.Float64(),
    "sd": pl.Float64(),
    "share": pl.Float64(),
    "share_random": pl.Float64(),
    "n_levels": pl.Int64(),
    "n": pl.Int64(),
    "converged": pl.Boolean(),
}

"""Linear mixed model of prediction shifts with a random intercept per face (seed 000 Table 10)."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Literal

import numpy as np
import polars as pl

from cueshift.stats._checked import returns
from cueshift.stats._effect_intervals import MODEL_REFITS, refit_interval, refit_replicates
from cueshift.stats._faces import group_means
from cueshift.stats._model_terms import cell_blocks, term_values, unfit_reason, wald_p_values
from cueshift.stats._registry import NotApplicable
from cueshift.stats._reml import RemlFit, reml_fit
from cueshift.stats._settings import DEFAULT_RESAMPLES

FACTORS = ("variation_category", "scenario_category")
#: Columns of the result (an empty frame of these when a factor has a single level).
EMPTY_RESULT: dict[str, pl.DataType] = {
    "term": pl.String(),
    "test": pl.String(),
    "statistic": pl.Float64(),
    "df": pl.Float64(),
    "df_resid": pl.Float64(),
    "p": pl.Float64(),
    "estimate": pl.Float64(),
    "n_levels": pl.Int64(),
    "n": pl.Int64(),
    "n_groups": pl.Int64(),
    "var_face": pl.Float64(),
    "var_resid": pl.Float64(),
    "var_fixed": pl.Float64(),
    "reml": pl.Boolean(),
    "converged": pl.Boolean(),
    "ci_low": pl.Float64(),
    "ci_high": pl.Float64(),
    "n_refits": pl.Int64(),
}
#: Optimisers tried in turn by :func:`mixed_model` until one converges.
FIT_METHODS = ("cg", "nm", "lbfgs")


def mixed_model_cells(delta: pl.DataFrame, *, category_map: Mapping[str, str] | None = None) -> pl.DataFrame:
    """Δ averaged per face × variation category × scenario category over models, values and
    scenarios (seed 000 App. D.2: "pooled across all six models by averaging Δ per face ×
    variation-category × scenario-category cell"). ``category_map`` renames variation categories
    before averaging, merging those it maps to one name (None: as they are; StylisticBias passes
    :data:`cueshift.designs.stylisticbias.constants.LME_CATEGORY_MAP`)."""
    data = delta.filter(pl.col("delta").is_not_null() & pl.col("delta").is_not_nan()).with_columns(
        pl.col("variation_category").replace(dict(category_map or {}))
    )
    keys = ["face_id", *FACTORS]
    return group_means(data, keys, "delta").drop("n").sort(keys)  # exact: the same in any row order


@returns("mixed_model")
def mixed_model(
    delta: pl.DataFrame,
    *,
    category_map: Mapping[str, str] | None = None,
    reml: bool = True,
    method: Sequence[str] = FIT_METHODS,
    df_denominator: Literal["residual"] = "residual",
    r2_ddof: int = 1,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    confidence_level: float = 0.95,
    max_refits: int = MODEL_REFITS,
    estimator: Literal["statsmodels", "reml"] = "statsmodels",
    cells: pl.DataFrame | None = None,
) -> pl.DataFrame:
    r"""Mixed model :math:`\Delta_{fvs} = \mu + \alpha_v + \gamma_s + u_f + \varepsilon_{fvs}` (Table 10).

    Fitted by :class:`statsmodels.regression.mixed_linear_model.MixedLM` (REML by default) on
    :func:`mixed_model_cells`, treatment coding, :math:`u_f \sim N(0, \sigma_u^2)`. The optimisers
    of ``method`` are tried in turn until one converges (statsmodels' own default, L-BFGS, stops
    unconverged or at a zero face variance on paper-sized simulated data; conjugate gradients
    converge there in a fraction of the time); ``converged`` reports the outcome.
    ``estimator='reml'`` fits the same model by :func:`cueshift.stats._reml.reml_fit` instead
    (faces eliminated per face in closed form: milliseconds, against seconds for MixedLM at paper
    scale; estimates agree to ~1e-5 relative, the REML criterion at ours is at least as high).

    Per factor with :math:`q` coefficients :math:`\hat\beta_J`: the Wald statistic
    :math:`W = \hat\beta_J^\top \hat V_J^{-1} \hat\beta_J`, :math:`F = W/q` on :math:`q` and
    :math:`N - p` df (``df_denominator='residual'``: observations minus fixed parameters; the
    paper gives no denominator df, and this choice reproduces its pairs of F and η²p:
    F = 358, df = 10 → η²p = 0.153 and F = 2188, df = 3 → 0.248 with N = 19,868), and

    .. math::

        \eta^2_p = \frac{F q}{F q + (N - p)}.

    Nakagawa & Schielzeth (2013) R²: with :math:`\sigma_f^2 = \operatorname{var}(X\hat\beta)`
    (``r2_ddof`` = 1 as MuMIn's ``var``), :math:`\sigma_u^2` the face variance and
    :math:`\sigma_\varepsilon^2` the residual variance,

    .. math::

        R^2_m = \frac{\sigma_f^2}{\sigma_f^2 + \sigma_u^2 + \sigma_\varepsilon^2},\qquad
        R^2_c = \frac{\sigma_f^2 + \sigma_u^2}{\sigma_f^2 + \sigma_u^2 + \sigma_\varepsilon^2}.

    Intervals (``ci_low``, ``ci_high``) of η²p and R²: face-level cluster bootstrap with
    min(``n_resamples``, ``max_refits``) replicates (faces drawn with replacement
    by ``seed``, a drawn copy its own face), each refitted by REML
    (:func:`cueshift.stats._reml.reml_fit`; a refit costs milliseconds, hence the cap), as the
    percentile interval re-centred on the bias-corrected value, clamped to [0, 1] and holding the estimate
    (:func:`cueshift.stats._effect_intervals.bias_shifted_interval`: both statistics are biased
    upward, and a plain percentile interval can miss them near zero). A draw whose refit admits
    no estimates (one distinct face, every drawn Δ equal, a level without data) is left out;
    ``n_refits`` counts the refits the interval rests on, and where more than α/2 of the draws
    failed there is no interval (:func:`cueshift.stats._effect_intervals.refit_interval`, D62).
    ``n_resamples=0``: none.
    ``category_map``: variation categories merged before the fit (see :func:`mixed_model_cells`).
    ``cells``: :func:`mixed_model_cells` of ``delta`` (same ``category_map``) already computed;
    the rows are then not read.

    A factor with a single level gives an empty frame. Cells that admit no estimates raise
    :class:`~cueshift.stats.NotApplicable` with the reason
    (:func:`~cueshift.stats._model_terms.unfit_reason`: every Δ equal, or a single face), as the
    fit would otherwise report rounding noise (F = 1e271, η²p = 1) or fail.

    Returns
    -------
    polars.DataFrame
        Rows ``variation_category`` and ``scenario_category`` (``estimate`` = η²p,
        ``statistic`` = F) and ``R2_marginal``, ``R2_conditional`` (``estimate`` = R²).

    References
    ----------
    .. [1] Nakagawa, S. & Schielzeth, H. (2013). A general and simple method for obtaining R²
       from generalized linear mixed-effects models. *Methods Ecol. Evol.* 4, 133–142.
    .. [2] seed 000 Table 10: η²p = 0.153 (variation), 0.248 (scenario), R²m = 0.594, R²c = 0.642.
    """
    if df_denominator != "residual":
        raise ValueError("df_denominator must be 'residual'")
    if estimator == "reml" and not reml:
        raise ValueError("estimator='reml' fits by REML only (reml=True)")
    if cells is None:
        cells = mixed_model_cells(delta, category_map=category_map)
    cells = cells.sort("face_id", *FACTORS)
    if min(cells[f].n_unique() for f in FACTORS) < 2:  # a factor with one level: no model to fit
        return pl.DataFrame(schema=EMPTY_RESULT)
    if (reason := unfit_reason(cells)) is not None:
        raise NotApplicable(reason)
    blocks = cell_blocks(cells, FACTORS)
    if estimator == "reml":
        fit, names = reml_fit(blocks, ddof=r2_ddof), blocks.names
    else:
        fit, names = _statsmodels_fit(cells, reml=reml, method=method, r2_ddof=r2_ddof)
    values = term_values(fit, names, FACTORS)
    n_refits = max(0, min(n_resamples, max_refits))
    low = high = np.full(values.estimates.size, np.nan)
    if n_refits:
        replicates = refit_replicates(blocks, FACTORS, fit.theta, n_refits=n_refits, seed=seed)
        low, high, n_refits = refit_interval(values.estimates, replicates, confidence_level)
    k, none = len(FACTORS), [None, None]
    return pl.DataFrame(
        {
            "term": [*FACTORS, "R2_marginal", "R2_conditional"],
            "test": ["wald-F"] * k + ["nakagawa-r2"] * 2,
            "statistic": [*values.statistic.tolist(), *none],
            "df": [*values.df.tolist(), *none],
            "df_resid": [values.df_resid] * k + none,
            "p": [*wald_p_values(values).tolist(), *none],
            "estimate": values.estimates,
            "n_levels": [int(d) + 1 for d in values.df] + none,
            "n": int(fit.n),
            "n_groups": cells["face_id"].n_unique(),
            "var_face": fit.var_face,
            "var_resid": fit.var_resid,
            "var_fixed": fit.var_fixed,
            "reml": reml,
            "converged": fit.converged,
            "ci_low": low,
            "ci_high": high,
            "n_refits": n_refits,
        },
        schema=EMPTY_RESULT,
    ).with_columns(pl.col("ci_low", "ci_high").fill_nan(None))


def _statsmodels_fit(
    cells: pl.DataFrame, *, reml: bool, method: Sequence[str], r2_ddof: int
) -> tuple[RemlFit, tuple[str, ...]]:
    """Table 10's model fitted by statsmodels' ``MixedLM`` (face groups), as a :class:`RemlFit`."""
    import statsmodels.formula.api as smf

    frame = cells.to_pandas()
    model = smf.mixedlm(
        "delta ~ C(variation_category) + C(scenario_category)", frame, groups=frame["face_id"]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = model.fit(reml=reml, method=list(method))
    names = tuple(fit.fe_params.index)
    beta = fit.fe_params.to_numpy()
    var_face, var_resid = float(np.asarray(fit.cov_re)[0, 0]), float(fit.scale)
    result = RemlFit(
        beta=beta,
        cov_beta=fit.cov_params().loc[list(names), list(names)].to_numpy(),
        var_face=var_face,
        var_other=0.0,
        var_resid=var_resid,
        theta=np.array([np.sqrt(var_face / var_resid) if var_resid > 0 else 1.0]),
        n=float(len(frame)),
        var_fixed=float(np.var(model.exog @ beta, ddof=r2_ddof)),
        converged=bool(fit.converged),
    )
    return result, names

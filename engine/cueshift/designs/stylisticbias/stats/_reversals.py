"""Sign reversals between models with evidence: a reversal counts only when the data can tell
the two signs apart (each SBS differs from zero in its own direction: an intersection–union test,
docs/decisions.md#d51), not whenever two noisy point estimates straddle zero, nor when the two
SBS merely differ."""

from __future__ import annotations

import warnings
from typing import Final

import numpy as np
import polars as pl

from cueshift.designs.stylisticbias.stats._comparison import paired_cells
from cueshift.designs.stylisticbias.stats._model_cells import ModelCells, model_cells
from cueshift.stats import ALPHA, Resampling, bh_by_family, one_sample_test

#: Columns of :func:`scenario_reversals` and their types.
REVERSAL_SCHEMA: Final = {
    "model_a": pl.String,
    "model_b": pl.String,
    "scenario_id": pl.String,
    "sbs_a": pl.Float64,
    "sbs_b": pl.Float64,
    "p_adj_a": pl.Float64,
    "p_adj_b": pl.Float64,
    "p_adj_difference": pl.Float64,
    "reversed": pl.Boolean,
    "reversed_significant": pl.Boolean,
}


def _model_scenario_tests(cells: ModelCells, resampling: Resampling) -> pl.DataFrame:
    """Scenario SBS per model with its test; ``p_adj`` BH within model (as ``result_sbs``'s
    scenario rows)."""
    frames = []
    for m, model in enumerate(cells.models):
        fm = cells.model_means(m, ["scenario_id"])
        _, p_value, _, _ = one_sample_test(
            fm.values, test=resampling.test, n_resamples=resampling.resamples, seed=resampling.seed
        )
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a scenario without faces: NaN
            sbs = np.nanmean(fm.values, axis=0)
        frames.append(
            fm.cells.select("scenario_id").with_columns(
                model_id=pl.lit(model), sbs=pl.Series(sbs), p=pl.Series(p_value).fill_nan(None)
            )
        )
    return bh_by_family(pl.concat(frames), ["model_id"])


def scenario_reversals(
    delta: pl.DataFrame,
    *,
    resampling: Resampling = Resampling(),
    alpha: float = ALPHA,
) -> pl.DataFrame:
    r"""Per model pair (:math:`a < b`) × scenario: is the sign of the scenario SBS reversed, and
    with evidence?

    ``reversed``: the point estimates have opposite signs,
    :math:`\mathrm{SBS}_a \mathrm{SBS}_b < 0` (seed 000 Fig. 5 counts these). Two judges with
    identical effects show such "reversals" wherever the true SBS is near zero.
    ``reversed_significant``: reversed *and* both SBS differ from zero
    (:math:`p_{\mathrm{adj}} < \alpha` each; WSRT or sign flips on per-face mean Δ, BH within
    the model over scenarios, as ``result_sbs``), each in the direction of its estimate: an
    intersection–union test of "the signs are opposite", level :math:`\alpha` for the pair
    without further correction [3]_. ``p_adj_difference``: the paired difference
    :math:`\mathrm{SBS}_a - \mathrm{SBS}_b` (per-face differences on the same faces, BH within
    the pair over scenarios; :func:`paired_cells`). A significant difference shows the models
    differ, not that their signs do (+0.12 against −0.005), so it does not make a reversal
    (before D51 it did); a reversal with neither is *not distinguishable* from sampling noise.
    ``resampling``: the tests, their resamples and seed (its interval settings are not used).

    References
    ----------
    .. [1] Gelman, A. & Carlin, J. (2014). Beyond power calculations: assessing type S (sign)
       and type M (magnitude) errors. *Perspect. Psychol. Sci.* 9, 641-651.
    .. [2] Miller, E. (2024). Adding error bars to evals. arXiv:2411.00640, §4.
    .. [3] Berger, R. L. (1982). Multiparameter hypothesis testing and acceptance sampling.
       *Technometrics* 24, 295–300.
    """
    return reversals_of(model_cells(delta), resampling=resampling, alpha=alpha)


def reversals_of(
    cells: ModelCells,
    *,
    resampling: Resampling = Resampling(),
    alpha: float = ALPHA,
) -> pl.DataFrame:
    """:func:`scenario_reversals` of Δ already laid out per model × face × cell."""
    pairs = paired_cells(cells, levels=("scenario",))
    if not pairs:
        return pl.DataFrame(schema=REVERSAL_SCHEMA)
    per_model = _model_scenario_tests(cells, resampling)
    frames = []
    for pair in pairs:
        _, p_value, _, _ = one_sample_test(
            pair.difference.values,
            test=resampling.test,
            n_resamples=resampling.resamples,
            seed=resampling.seed,
        )
        frames.append(
            pair.difference.cells.select("scenario_id").with_columns(
                model_a=pl.lit(pair.model_a),
                model_b=pl.lit(pair.model_b),
                p=pl.Series(p_value).fill_nan(None),
            )
        )
    differences = bh_by_family(pl.concat(frames), ["model_a", "model_b"]).rename(
        {"p_adj": "p_adj_difference"}
    )

    def side(tag: str) -> pl.DataFrame:
        return per_model.select(
            pl.col("model_id").alias(f"model_{tag}"),
            "scenario_id",
            pl.col("sbs").alias(f"sbs_{tag}"),
            pl.col("p_adj").alias(f"p_adj_{tag}"),
        )

    out = differences.join(side("a"), on=["model_a", "scenario_id"]).join(
        side("b"), on=["model_b", "scenario_id"]
    )
    # intersection–union: opposite estimates, each significant (D51); the difference alone is not
    significant = (pl.col("p_adj_a") < alpha) & (pl.col("p_adj_b") < alpha)
    out = out.with_columns(reversed=(pl.col("sbs_a") * pl.col("sbs_b") < 0).fill_null(False)).with_columns(
        reversed_significant=(pl.col("reversed") & significant).fill_null(False)
    )
    return out.select(*REVERSAL_SCHEMA).sort("model_a", "model_b", "scenario_id")

"""Cross-model structure (seed 000 §5.3, Fig. 5): agreement of per-scenario shifts between
models, sign reversals, and whether the scenario-category ranking is preserved."""

from __future__ import annotations

import warnings
from itertools import combinations

import numpy as np
import polars as pl

from cueshift.designs.stylisticbias.stats._model_cells import ModelCells, model_cells
from cueshift.designs.stylisticbias.stats._reversals import reversals_of
from cueshift.stats import (
    ALPHA,
    POOLED,
    Resampling,
    group_means,
    pearson_slope,
    ratio_means,
    returns,
)

RANKING_SCHEMA = {
    "model_id": pl.String,
    "scenario_category": pl.String,
    "abs_sbs": pl.Float64,
    "rank": pl.Int64,
    "ranking_preserved": pl.Boolean,
    "n_adjacent_reversals": pl.Int64,
    "n": pl.Int64,
}


def scenario_means(delta: pl.DataFrame) -> pl.DataFrame:
    """Face-level mean Δ per model × scenario (the points of Fig. 5): per face, the mean over the
    scenario's variations; then the mean over faces."""
    return _scenario_means(model_cells(delta))


def _scenario_means(cells: ModelCells) -> pl.DataFrame:
    frames = []
    for m, model in enumerate(cells.models):
        fm = cells.model_means(m, ["scenario_category", "scenario_id"])
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a scenario without faces: NaN
            means = np.nanmean(fm.values, axis=0)
        frames.append(fm.cells.with_columns(model_id=pl.lit(model), estimate=pl.Series(means)))
    columns = ["model_id", "scenario_category", "scenario_id", pl.col("n_obs").cast(pl.Int64), "estimate"]
    if not frames:
        return pl.DataFrame(schema={"model_id": pl.String, "scenario_id": pl.String, "estimate": pl.Float64})
    return pl.concat(frames).select(columns)


@returns("category_ranking")
def category_ranking(delta: pl.DataFrame, *, cells: ModelCells | None = None) -> pl.DataFrame:
    r"""Scenario-category sensitivity per model and pooled, ranked (seed 000 §5.3).

    Category |SBS| = mean over the category's model × variation value × scenario cells of
    :math:`|\mathrm{SBS}_c|` (the |SBS| unit of :func:`sbs_levels`; the cell's mean Δ over its
    rows). ``rank`` 1 = most sensitive. ``ranking_preserved``: the model orders the categories
    exactly as the pooled ranking; ``n_adjacent_reversals``: adjacent pairs of the pooled order
    that the model swaps (paper: LLaVA, Pixtral and Qwen3 "each reverse one adjacent category pair").
    ``cells``: ``delta`` already laid out by :func:`model_cells` (the rows are then not read).
    """
    return _category_ranking(model_cells(delta) if cells is None else cells)


def _cell_abs_means(cells: ModelCells) -> pl.DataFrame:
    """|mean Δ| of each model × variation × scenario cell over its rows (summed exactly)."""
    frames = []
    for m, model in enumerate(cells.models):
        counts = cells.counts[m].sum(axis=0)
        means = ratio_means(cells.sums[m].sum(axis=0), counts, cells.scale)
        frames.append(
            cells.cells.with_columns(model_id=pl.lit(model), a=pl.Series(np.abs(means))).filter(
                pl.Series(counts > 0)
            )
        )
    if not frames:  # no Δ at all
        return cells.cells.with_columns(
            model_id=pl.lit(None, dtype=pl.String), a=pl.lit(None, dtype=pl.Float64)
        )
    return pl.concat(frames)


def _category_ranking(cells: ModelCells) -> pl.DataFrame:
    if not cells.models:  # no Δ at all
        return pl.DataFrame(schema=RANKING_SCHEMA)
    cell = _cell_abs_means(cells)
    per_model = group_means(cell, ["model_id", "scenario_category"], "a", alias="abs_sbs")
    pooled = group_means(cell, ["scenario_category"], "a", alias="abs_sbs").with_columns(
        pl.lit(POOLED).alias("model_id")
    )
    out = (
        pl.concat([per_model, pooled.select(per_model.columns)])
        .sort(["model_id", "abs_sbs"], descending=[False, True])
        .with_columns(rank=pl.int_range(1, pl.len() + 1).over("model_id").cast(pl.Int64))
    )
    pooled_order = out.filter(pl.col("model_id") == POOLED)["scenario_category"].to_list()
    status = []
    for model, part in out.group_by("model_id", maintain_order=True):
        order = part["scenario_category"].to_list()
        pos = {c: i for i, c in enumerate(order)}
        reversals = sum(
            1
            for a, b in zip(pooled_order, pooled_order[1:], strict=False)
            if a in pos and b in pos and pos[a] > pos[b]
        )
        status.append(
            {
                "model_id": model[0],
                "ranking_preserved": order == pooled_order,
                "n_adjacent_reversals": reversals,
            }
        )
    return out.join(pl.DataFrame(status), on="model_id").select(
        "model_id",
        "scenario_category",
        "abs_sbs",
        "rank",
        "ranking_preserved",
        pl.col("n_adjacent_reversals").cast(pl.Int64),
        pl.col("n").cast(pl.Int64),
    )


@returns("cross_model")
def cross_model(
    delta: pl.DataFrame,
    *,
    resampling: Resampling = Resampling(),
    cells: ModelCells | None = None,
) -> pl.DataFrame:
    r"""Agreement between every pair of models on per-scenario mean Δ (seed 000 Fig. 5).

    For models :math:`a < b` (sorted ids) and the scenarios both have: Pearson :math:`r`
    (``estimate``; Fisher-z CI; t-test p), the OLS ``slope`` of :math:`b` on :math:`a` (paper:
    Gemma-4 on Gemma-3, r = 0.75, slope = 0.39; ``slope_reverse`` regresses :math:`a` on
    :math:`b`), ``n_sign_reversed`` — scenarios whose mean Δ has opposite signs
    (:math:`\bar\Delta_a \bar\Delta_b < 0`; paper: 4 to 12) — split into
    ``n_reversed_significant`` (with evidence: both scenario SBS significant, an
    intersection–union test, D51; :func:`scenario_reversals`, ``resampling``'s test, resamples and
    seed its tests), those whose paired difference alone is significant (the rest of
    ``n_sign_reversed``: not counted, the signs are not established) and
    ``n_reversed_not_distinguishable`` (neither), and ``category_ranking_preserved``: both models rank the
    scenario categories identically (the Fisher-z CI at ``resampling.confidence_level``).
    ``cells``: as :func:`category_ranking`.
    """
    cells = model_cells(delta) if cells is None else cells
    means = _scenario_means(cells)
    reversals = reversals_of(cells, resampling=resampling)
    difference_only = (
        pl.col("reversed") & ~pl.col("reversed_significant") & (pl.col("p_adj_difference") < ALPHA)
    ).fill_null(False)
    evidence = {
        (a, b): (int(n), int(d))
        for a, b, n, d in reversals.group_by("model_a", "model_b")
        .agg(pl.col("reversed_significant").sum(), difference_only.sum())
        .iter_rows()
    }
    ranking = _category_ranking(cells)
    order = {
        m: p["scenario_category"].to_list() for (m,), p in ranking.group_by("model_id", maintain_order=True)
    }
    models = sorted(means["model_id"].unique().to_list())
    wide = means.pivot(on="model_id", index="scenario_id", values="estimate")
    rows = []
    for a, b in combinations(models, 2):
        x, y = wide[a].to_numpy().astype(float), wide[b].to_numpy().astype(float)
        res = pearson_slope(x, y, confidence_level=resampling.confidence_level)
        rev = pearson_slope(y, x)
        ok = ~(np.isnan(x) | np.isnan(y))
        n_reversed = int(np.sum(x[ok] * y[ok] < 0))
        rows.append(
            {
                "model_a": a,
                "model_b": b,
                "estimate": res.r,
                "ci_low": res.ci_low,
                "ci_high": res.ci_high,
                "statistic": res.statistic,
                "df": res.df,
                "p": res.p_value,
                "slope": res.slope,
                "intercept": res.intercept,
                "slope_reverse": rev.slope,
                "n_sign_reversed": n_reversed,
                "n_reversed_significant": evidence.get((a, b), (0, 0))[0],
                "n_reversed_not_distinguishable": n_reversed - sum(evidence.get((a, b), (0, 0))),
                "category_ranking_preserved": order.get(a) == order.get(b),
                "n": res.n,
            }
        )
    schema = {
        "model_a": pl.String,
        "model_b": pl.String,
        "estimate": pl.Float64,
        "ci_low": pl.Float64,
        "ci_high": pl.Float64,
        "statistic": pl.Float64,
        "df": pl.Float64,
        "p": pl.Float64,
        "slope": pl.Float64,
        "intercept": pl.Float64,
        "slope_reverse": pl.Float64,
        "n_sign_reversed": pl.Int64,
        "n_reversed_significant": pl.Int64,
        "n_reversed_not_distinguishable": pl.Int64,
        "category_ranking_preserved": pl.Boolean,
        "n": pl.Int64,
    }
    return pl.DataFrame(rows, schema=schema).with_columns(
        pl.col(pl.Float64).fill_nan(None), test=pl.lit("pearson")
    )

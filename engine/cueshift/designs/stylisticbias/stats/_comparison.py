"""Paired differences between models with error bars (Miller 2024, "Adding Error Bars to Evals").

Two models judge the same faces, variations and scenarios, so their SBS are compared *paired*:
per face, the difference of the two models' mean Δ over the rows both have, then the mean over
faces. The unit of resampling and testing is the face (rows of a face are correlated), and the
clustered standard error is shown beside the naive one with their design effect.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import polars as pl

from cueshift._types import F64
from cueshift.designs.stylisticbias.stats._comparison_crossed import crossed_difference_intervals
from cueshift.designs.stylisticbias.stats._model_cells import FINE_KEYS, ModelCells, model_cells
from cueshift.stats import (
    FaceMatrix,
    Resampling,
    bh_by_family,
    cluster_bootstrap,
    clustered_standard_error,
    design_effect,
    face_multiplicities,
    naive_standard_error,
    one_sample_test,
    returns,
)

#: Levels of the model comparison and their grouping columns
#: (as :data:`cueshift.designs.stylisticbias.stats.LEVELS`).
COMPARISON_LEVELS: Mapping[str, tuple[str, ...]] = {
    "model": (),
    "variation_value": ("variation_category", "variation_value"),
    "scenario": ("scenario_category", "scenario_id"),
}
KEY_COLUMNS = FINE_KEYS


@dataclass(frozen=True)
class PairedCells:
    """One model pair at one level: per-face mean differences (model a − model b) and per-face
    means of each model, over the rows both models have; ``cells`` holds the level's keys,
    ``n_obs`` (paired rows), ``row_mean`` and ``row_mean_sq`` of the row differences."""

    model_a: str
    model_b: str
    level: str
    difference: FaceMatrix
    mean_a: F64
    mean_b: F64


def paired_cells(cells: ModelCells, *, levels: Sequence[str] = tuple(COMPARISON_LEVELS)) -> list[PairedCells]:
    r"""Per-face paired differences of every model pair (sorted ids, :math:`a < b`) per level.

    For face :math:`f` and cell :math:`c` of a level, with :math:`R_{fc}` the variation ×
    scenario rows in which both models have a Δ,

    .. math::

        \bar d_{fc} = \frac{1}{|R_{fc}|}\sum_{r \in R_{fc}} (\Delta^{a}_{r} - \Delta^{b}_{r})
                    = \bar\Delta^{a}_{fc} - \bar\Delta^{b}_{fc}

    (:meth:`ModelCells.paired`), and each model's per-face mean over the same rows.
    """
    out = []
    for a, b in combinations(range(len(cells.models)), 2):
        for level in levels:
            difference, mean_a, mean_b = cells.paired(a, b, COMPARISON_LEVELS[level])
            out.append(PairedCells(cells.models[a], cells.models[b], level, difference, mean_a, mean_b))
    return out


def _face_mean(values: F64) -> F64:
    """Mean over the faces with data, per column (NaN where none has)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        mean: F64 = np.where(np.isnan(values), 0.0, values).sum(axis=0) / (~np.isnan(values)).sum(axis=0)
    return mean


@returns("model_differences")
def model_differences(
    delta: pl.DataFrame,
    *,
    levels: Sequence[str] = tuple(COMPARISON_LEVELS),
    resampling: Resampling = Resampling(),
    generalise: str = "faces",
    cells: ModelCells | None = None,
) -> pl.DataFrame:
    r"""Paired SBS differences between every pair of models, with error bars (Miller 2024).

    ``estimate`` :math:`= \mathrm{SBS}_a - \mathrm{SBS}_b = G^{-1}\sum_f \bar d_f` over the
    :math:`G` faces both models have in the row (:func:`paired_cells`); ``sbs_a``/``sbs_b``
    are each model's SBS on those faces and rows. Per row:

    - a face-clustered bootstrap CI (:func:`cluster_bootstrap`: faces drawn with replacement,
      one draw shared by every row);
    - a paired test of :math:`\bar d_f` against 0: WSRT (``test='rank'``) or sign flips
      (``'permutation'``); per-face differences are summed exactly (integers over the common
      denominator of the counts), so row order cannot create or break a tie; ``p_adj`` is BH
      within pair × level;
    - ``se_clustered`` (CRVE from the per-face sums, :func:`clustered_standard_error`) beside
      ``se_naive`` (rows as independent, :func:`naive_standard_error`) and their
      ``design_effect`` :math:`(\mathrm{SE}_C/\mathrm{SE}_{\text{naive}})^2`
      (:func:`design_effect`). A design effect of 10 means that a naive interval is
      :math:`\sqrt{10} \approx 3.2` times too narrow.

    Parameters
    ----------
    delta : polars.DataFrame
        Rows of the ``delta`` view of two or more models.
    levels : sequence of str
        Keys of :data:`COMPARISON_LEVELS`: the whole model, each variation value, each scenario.
    resampling : Resampling
        Bootstrap settings (and the sign-flip resamples); its ``test`` (``'rank'`` or
        ``'permutation'``) is the paired test on the per-face differences.
    generalise : {'faces', 'faces+scenarios'}
        ``'faces+scenarios'`` (``cueshift analyze --generalise``): the model and variation-value
        rows' intervals resample faces and scenarios together
        (:func:`crossed_difference_intervals`); estimates, tests and SEs stay.
    cells : ModelCells, optional
        ``delta`` already laid out by :func:`model_cells` (the rows are then not read).

    Returns
    -------
    polars.DataFrame
        One row per pair × level × cell; schema ``ModelDifferenceSchema``. Empty with fewer
        than two models.

    References
    ----------
    .. [1] Miller, E. (2024). Adding error bars to evals: a statistical approach to language
       model evaluations. arXiv:2411.00640, §2.3 (clustered SE), §4 (paired differences).
    .. [2] Field, C. A. & Welsh, A. H. (2007). Bootstrapping clustered data. *JRSS B* 69, 369-390.
    """
    cells = model_cells(delta) if cells is None else cells
    pairs = paired_cells(cells, levels=levels)
    if not pairs:
        return _empty()
    values = np.ascontiguousarray(np.hstack([p.difference.values for p in pairs]))
    w = face_multiplicities(len(cells.faces), resampling.resamples, resampling.seed)
    boot, _ = cluster_bootstrap(
        values, confidence_level=resampling.confidence_level, method=resampling.ci_method, multiplicities=w
    )
    ci_low, ci_high = boot.ci_low, boot.ci_high
    if generalise == "faces+scenarios":
        ci_low, ci_high = crossed_difference_intervals(cells, levels, COMPARISON_LEVELS, boot, w, resampling)
    statistic, p_value, effect, test_name = one_sample_test(
        values, test=resampling.test, n_resamples=resampling.resamples, seed=resampling.seed
    )
    frames = []
    for p in pairs:
        keys = p.difference.cells
        naive = naive_standard_error(
            keys["n_obs"].to_numpy(), keys["row_mean"].to_numpy(), keys["row_mean_sq"].to_numpy()
        )
        clustered = clustered_standard_error(p.difference.values)
        frames.append(
            keys.drop("row_mean", "row_mean_sq").with_columns(
                level=pl.lit(p.level),
                model_a=pl.lit(p.model_a),
                model_b=pl.lit(p.model_b),
                sbs_a=pl.Series(_face_mean(p.mean_a)),
                sbs_b=pl.Series(_face_mean(p.mean_b)),
                se_clustered=pl.Series(clustered),
                se_naive=pl.Series(naive),
                design_effect=pl.Series(design_effect(clustered, naive)),
            )
        )
    out = pl.concat(frames, how="diagonal_relaxed").with_columns(
        estimate=pl.Series(boot.estimate),
        ci_low=pl.Series(ci_low),
        ci_high=pl.Series(ci_high),
        statistic=pl.Series(statistic),
        p=pl.Series(p_value),
        effect_size=pl.Series(effect),
        n=pl.Series(boot.n.astype(np.int64)),
        test=pl.lit(test_name),
        ci_method=pl.lit(resampling.ci_method),
    )
    for col in KEY_COLUMNS:
        if col not in out.columns:
            out = out.with_columns(pl.lit(None, dtype=pl.String).alias(col))
    out = out.filter(pl.col("n_obs") > 0)  # a cell the two models do not share
    out = bh_by_family(out.with_columns(pl.col(pl.Float64).fill_nan(None)), ["model_a", "model_b", "level"])
    return out.select(*MODEL_DIFFERENCE_COLUMNS).with_columns(pl.col(pl.Float64).fill_nan(None))


#: Column order of ``result_model_differences``.
MODEL_DIFFERENCE_COLUMNS = (
    "level",
    "model_a",
    "model_b",
    *KEY_COLUMNS,
    "sbs_a",
    "sbs_b",
    "estimate",
    "ci_low",
    "ci_high",
    "se_clustered",
    "se_naive",
    "design_effect",
    "statistic",
    "p",
    "p_adj",
    "effect_size",
    "test",
    "ci_method",
    "n",
    "n_obs",
)


def _empty() -> pl.DataFrame:
    text = {"level", "model_a", "model_b", *KEY_COLUMNS, "test", "ci_method"}
    schema = {
        c: pl.String if c in text else pl.Int64 if c in ("n", "n_obs") else pl.Float64
        for c in MODEL_DIFFERENCE_COLUMNS
    }
    return pl.DataFrame(schema=schema)

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
from numpy.typing import NDArray

from cueshift.stats._checked import returns
from cueshift.stats._clustered import F64, clustered_standard_error, design_effect, naive_standard_error
from cueshift.stats._exact_means import count_denominator, exact_bincount, scaled_integers
from cueshift.stats._faces import FaceMatrix, FaceSums, _cell_codes, _encode, coarsen, study_faces
from cueshift.stats._multiplicity import bh_by_family
from cueshift.stats._resample import CIMethod, cluster_bootstrap, face_multiplicities
from cueshift.stats._sbs import TestMethod, one_sample_test

#: Levels of the model comparison and their grouping columns (as :data:`cueshift.stats.LEVELS`).
COMPARISON_LEVELS: Mapping[str, tuple[str, ...]] = {
    "model": (),
    "variation_value": ("variation_category", "variation_value"),
    "scenario": ("scenario_category", "scenario_id"),
}
#: What two models' Δ rows are paired on: one face × variation × scenario.
ROW_KEY = (
    "face_id",
    "variation_category",
    "feature_key",
    "variation_value",
    "scenario_category",
    "scenario_id",
)
FINE_KEYS = ("variation_category", "variation_value", "scenario_category", "scenario_id")
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


def paired_cells(
    delta: pl.DataFrame, *, levels: Sequence[str] = tuple(COMPARISON_LEVELS)
) -> tuple[list[str], list[PairedCells]]:
    r"""Per-face paired differences of every model pair (sorted ids, :math:`a < b`) per level.

    For face :math:`f` and cell :math:`c` of a level, with :math:`R_{fc}` the rows (variation ×
    scenario) in which both models have a Δ,

    .. math::

        \bar d_{fc} = \frac{1}{|R_{fc}|}\sum_{r \in R_{fc}} (\Delta^{a}_{r} - \Delta^{b}_{r})
                    = \bar\Delta^{a}_{fc} - \bar\Delta^{b}_{fc}.

    Returns the faces (sorted) and one :class:`PairedCells` per pair × level.
    """
    data = delta.filter(pl.col("delta").is_not_null() & pl.col("delta").is_not_nan())
    models = sorted(data["model_id"].unique().to_list())
    faces = study_faces(data)
    if len(models) < 2:
        return faces, []
    wide = data.pivot(on="model_id", index=list(ROW_KEY), values="delta", aggregate_function="mean").sort(
        list(ROW_KEY), nulls_last=True
    )
    cell_of_row, cells = _cell_codes(wide, list(FINE_KEYS))
    flat = _encode(wide["face_id"], faces) * cells.height + cell_of_row
    shape = (len(faces), cells.height)
    denominator = count_denominator(data)
    out = []
    for a, b in combinations(models, 2):
        da, db = wide[a].to_numpy().astype(np.float64), wide[b].to_numpy().astype(np.float64)
        both = ~(np.isnan(da) | np.isnan(db))
        idx, diff = flat[both], (da - db)[both]
        counts = np.bincount(idx, minlength=shape[0] * shape[1]).astype(np.float64).reshape(shape)
        sums, scale = _exact_sums(idx, diff, denominator, shape)
        squares = (
            np.bincount(idx, weights=diff * diff, minlength=counts.size).astype(np.float64).reshape(shape)
        )
        paired = FaceSums(
            faces, cells, sums, counts, scale, {"row_mean": (sums, scale), "row_mean_sq": (squares, 1.0)}
        )
        sums_a, scale_a = _exact_sums(idx, da[both], denominator, shape)
        sums_b, scale_b = _exact_sums(idx, db[both], denominator, shape)
        per_a = FaceSums(faces, cells, sums_a, counts, scale_a, {})
        per_b = FaceSums(faces, cells, sums_b, counts, scale_b, {})
        for level in levels:
            keys = COMPARISON_LEVELS[level]
            out.append(
                PairedCells(
                    a,
                    b,
                    level,
                    coarsen(paired, keys),
                    coarsen(per_a, keys).values,
                    coarsen(per_b, keys).values,
                )
            )
    return faces, out


def _exact_sums(
    idx: NDArray[np.int64], values: F64, denominator: int, shape: tuple[int, int]
) -> tuple[F64, float]:
    """Integer-valued sums (and their scale) of the rows per face × fine cell: exact in any row
    order, so equal per-face differences are equal doubles (:mod:`._exact_means`)."""
    numerators, scale = scaled_integers(values, denominator)
    return exact_bincount(idx, numerators, shape[0] * shape[1]).reshape(shape), scale


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
    n_resamples: int = 10_000,
    seed: int = 0,
    confidence_level: float = 0.95,
    ci_method: CIMethod = "bca",
    test: TestMethod = "rank",
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
    n_resamples, seed, confidence_level, ci_method
        Bootstrap settings (and the sign-flip resamples).
    test : {'rank', 'permutation'}
        Paired test on the per-face differences.

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
    faces, pairs = paired_cells(delta, levels=levels)
    if not pairs:
        return _empty()
    values = np.ascontiguousarray(np.hstack([p.difference.values for p in pairs]))
    boot, _ = cluster_bootstrap(
        values,
        confidence_level=confidence_level,
        method=ci_method,
        multiplicities=face_multiplicities(len(faces), n_resamples, seed),
    )
    statistic, p_value, effect, test_name = one_sample_test(
        values, test=test, n_resamples=n_resamples, seed=seed
    )
    frames = []
    for p in pairs:
        cells = p.difference.cells
        naive = naive_standard_error(
            cells["n_obs"].to_numpy(), cells["row_mean"].to_numpy(), cells["row_mean_sq"].to_numpy()
        )
        clustered = clustered_standard_error(p.difference.values)
        frames.append(
            cells.drop("row_mean", "row_mean_sq").with_columns(
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
        ci_low=pl.Series(boot.ci_low),
        ci_high=pl.Series(boot.ci_high),
        statistic=pl.Series(statistic),
        p_value=pl.Series(p_value),
        effect_size=pl.Series(effect),
        n=pl.Series(boot.n.astype(np.int64)),
        test=pl.lit(test_name),
        ci_method=pl.lit(ci_method),
    )
    for col in KEY_COLUMNS:
        if col not in out.columns:
            out = out.with_columns(pl.lit(None, dtype=pl.String).alias(col))
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
    "p_value",
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

"""Each attribute value against the noise floor (``result_noise_floor_attributes``): its |SBS|
beside the placebos' cell |SBS|, and the one-sided face-level test of whether the value moves
judgments more than the placebos do. The calibration and references are in the docstring of
:mod:`~cueshift.designs.stylisticbias.stats._noise`."""

from __future__ import annotations

import numpy as np
import polars as pl

from cueshift.designs.stylisticbias.stats._noise_face_tests import _floor, _select, _test_name, _tested
from cueshift.designs.stylisticbias.stats._noise_grid import (
    axes_of,
    cell_abs,
    grid_of,
    ratio,
    split_key,
    valid,
)
from cueshift.stats import (
    POOLED,
    Resampling,
    bh_by_family,
    returns,
)


@returns("noise_floor_attributes")
def attributes_vs_floor(
    delta: pl.DataFrame,
    placebo: pl.DataFrame,
    *,
    quantile: float = 0.95,
    alpha: float = 0.05,
    resampling: Resampling = Resampling(),
) -> pl.DataFrame:
    r"""Each attribute value's |SBS| beside the placebo floor, and whether it passes the floor.

    Per model (and ``(pooled)``) × value: ``abs_sbs`` is the mean of its cells' |SBS|
    (:func:`cell_abs_sbs`, as ``result_sbs``'s value level), ``floor_mean`` / ``floor_quantile`` the
    placebos' cell |SBS| mean and upper ``quantile`` (all placebos of the model), ``ratio`` =
    ``abs_sbs / floor_mean``, ``share_cells_above`` the share of the value's cells above
    ``floor_quantile`` (≈ 1 − ``quantile`` without an effect) and ``above_floor`` whether
    ``abs_sbs`` itself is. ``estimate`` is the mean over faces of :math:`d_{fv}` (the face's mean
    |Δ| for the value minus its mean placebo |Δ|) with a face-level bootstrap CI; the one-sided WSRT
    (or sign flips) tests :math:`d_{fv} > 0`, ``p_adj`` is BH within the model, and ``passes`` is
    ``p_adj < alpha``. Calibration and references: the docstring of ``_noise.py``.

    Parameters
    ----------
    delta, placebo : polars.DataFrame
        ``delta`` rows of the attribute variations and of the placebos.
    quantile, alpha
        The floor's upper quantile and the FDR level of ``passes``.
    resampling : Resampling
        As :func:`noise_floor`.
    """
    attr, plac = valid(delta), valid(placebo)
    models, faces = axes_of(attr, plac)
    grid, floor_grid = grid_of(attr, models, faces), grid_of(plac, models, faces)
    cells, floor_cells = cell_abs(grid), cell_abs(floor_grid)
    rows: list[tuple[object, ...]] = []
    columns = []
    for model in [*models, POOLED]:
        m = _select(models, model)
        floor_mean, floor_q, _, _ = _floor(floor_cells[m], quantile)
        floor_face = ratio(
            floor_grid.abs_delta[m].sum(axis=(0, 1, 2)), floor_grid.count[m].sum(axis=(0, 1, 2))
        )
        for v, key in enumerate(grid.values):
            kept = cells[m, v][~np.isnan(cells[m, v])]
            if kept.size == 0:
                continue  # the value is not in this model's rows
            counts = grid.count[m, v].sum(axis=(0, 1))
            columns.append(ratio(grid.abs_delta[m, v].sum(axis=(0, 1)), counts) - floor_face)
            abs_sbs = float(kept.mean())
            rows.append((model, *split_key(key), abs_sbs, floor_mean, floor_q, float((kept > floor_q).mean()),
                         int(kept.size), int(counts.sum())))  # fmt: skip
    names = ["model_id", "variation_category", "variation_value", "abs_sbs", "floor_mean", "floor_quantile",
             "share_cells_above", "n_cells", "n_obs"]  # fmt: skip
    frame = pl.DataFrame(rows, schema=names, orient="row", schema_overrides={"variation_category": pl.String})
    tested = _tested(np.column_stack(columns), resampling, "greater") if columns else {}
    out = frame.with_columns(
        *(pl.Series(name, tested.get(name, np.zeros(0))) for name in ("estimate", "ci_low", "ci_high")),
        *(pl.Series(name, tested.get(name, np.zeros(0))) for name in ("statistic", "p", "effect_size")),
        pl.Series("n", tested.get("n", np.zeros(0))).cast(pl.Int64),
        (pl.col("abs_sbs") / pl.col("floor_mean")).alias("ratio"),
        (pl.col("abs_sbs") > pl.col("floor_quantile")).fill_null(False).alias("above_floor"),
        pl.lit(_test_name(resampling.test)).alias("test"),
        pl.lit(resampling.ci_method).alias("ci_method"),
    ).with_columns(pl.col(pl.Float64).fill_nan(None))
    out = bh_by_family(out, ["model_id"]).with_columns(
        (pl.col("p_adj") < alpha).fill_null(False).alias("passes")
    )
    return out.select(
        "model_id", "variation_category", "variation_value", "abs_sbs", "floor_mean", "floor_quantile",
        "ratio", "share_cells_above", "above_floor", "estimate", "ci_low", "ci_high", "statistic", "p",
        "p_adj", "passes", "effect_size", "test", "ci_method", pl.col("n_cells").cast(pl.Int64), "n",
        pl.col("n_obs").cast(pl.Int64),
    ).with_columns(pl.col(pl.Float64).fill_nan(None))  # fmt: skip

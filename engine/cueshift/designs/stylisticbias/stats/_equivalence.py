"""Equivalence to no shift (``result_equivalence``): each model's SBS, and each pair of models'
SBS difference, per variation category or value × scenario category, tested against the study's
smallest effects of interest by two one-sided tests (:func:`cueshift.stats.tost`) on the same
per-face means as the SBS tables."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import polars as pl

from cueshift._types import F64
from cueshift.designs.stylisticbias.stats._equivalence_vs import vs_equivalence_rows
from cueshift.designs.stylisticbias.stats._summed import SummedDelta
from cueshift.stats import ALPHA, bh_by_family, coarsen, equivalence_verdicts, returns, tost
from cueshift.study.equivalence import EquivalenceConfig

#: Grouping columns of each level (``model_id`` first); each also split by scenario category.
EQUIVALENCE_LEVELS: dict[str, tuple[str, ...]] = {
    "variation_category": ("variation_category",),
    "variation_value": ("variation_category", "variation_value"),
}
#: The BH families: one per quantity × level × model (or pair of models).
FAMILY = ("quantity", "level", "model_id", "other_model_id")
_TEXT, _REAL = pl.String(), pl.Float64()
#: The columns of ``result_equivalence``, in order.
COLUMNS: dict[str, pl.DataType] = {
    **dict.fromkeys(("quantity", "level", "model_id", "other_model_id", "variation_category"), _TEXT),
    **dict.fromkeys(("variation_value", "dimension", "scenario_category"), _TEXT),
    **dict.fromkeys(("margin", "ci_level", "estimate", "ci_low", "ci_high", "statistic"), _REAL),
    **dict.fromkeys(("p", "p_adj", "p_shift", "p_shift_adj"), _REAL),
    "n": pl.Int64(),
    "verdict": _TEXT,
}


@returns("equivalence")
def equivalence_table(
    summed: SummedDelta | None,
    margins: EquivalenceConfig,
    *,
    alpha: float = ALPHA,
    base_phi: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """TOST of every model's SBS and of every pair of models' SBS difference against its margin,
    and (with ``base_phi``) the one-sided test of every model's VS below its margin.

    Rows: per level of :data:`EQUIVALENCE_LEVELS`, over all scenarios (``scenario_category``
    null) and per scenario category; ``quantity='delta'`` per model (margin ``margins.delta``),
    ``'model_difference'`` per pair of models, ``model_id`` minus ``other_model_id`` per face
    (margin ``margins.model_difference``). Faces are the units: each face's mean Δ in the row
    (the face values of ``result_sbs``). ``quantity='vs'`` (level ``dimension``): each model's
    VS of each demographic dimension, as Table 2 (:func:`vs_equivalence_rows`, margin
    ``margins.vs``). ``p_adj`` and ``p_shift_adj`` are BH within
    :data:`FAMILY`; the verdict is :func:`cueshift.stats.equivalence_verdicts` at ``alpha``.

    Parameters
    ----------
    summed : SummedDelta or None
        The run's Δ rows summed per face (None: no Δ rows, no SBS rows).
    margins : EquivalenceConfig
        The study's ``[equivalence]`` section.
    alpha : float
        Level of each one-sided test (the interval's coverage is ``1 - 2 alpha``).
    base_phi : polars.DataFrame, optional
        Rows of the ``base_phi`` view (None: no VS rows).

    Returns
    -------
    polars.DataFrame
        Schema ``EquivalenceSchema``.
    """
    frames = [] if summed is None else _delta_frames(summed, margins, alpha)
    if base_phi is not None:
        frames.append(vs_equivalence_rows(base_phi, margins.vs, alpha=alpha))
    frames = [frame for frame in frames if frame.height]
    if not frames:
        return pl.DataFrame(schema=COLUMNS)
    out = pl.concat(frames, how="diagonal_relaxed")
    for key in ("other_model_id", "variation_category", "variation_value", "scenario_category", "dimension"):
        if key not in out.columns:  # absent with one model, or without Δ or VS rows
            out = out.with_columns(pl.lit(None, dtype=pl.String).alias(key))
    out = bh_by_family(out, FAMILY)
    out = bh_by_family(out.rename({"p_adj": "tost_p_adj", "p": "tost_p", "p_shift": "p"}), FAMILY)
    out = out.rename({"p": "p_shift", "p_adj": "p_shift_adj", "tost_p": "p", "tost_p_adj": "p_adj"})
    verdicts = equivalence_verdicts(
        out["p_shift_adj"].fill_null(np.nan).to_numpy(),
        out["p_adj"].fill_null(np.nan).to_numpy(),
        out["ci_low"].fill_null(np.nan).to_numpy(),
        out["ci_high"].fill_null(np.nan).to_numpy(),
        alpha=alpha,
    )
    out = out.with_columns(verdict=pl.Series(verdicts, dtype=pl.String))
    return out.select(pl.col(name).cast(dtype) for name, dtype in COLUMNS.items()).with_columns(
        pl.col(pl.Float64).fill_nan(None)
    )


def _delta_frames(summed: SummedDelta, margins: EquivalenceConfig, alpha: float) -> list[pl.DataFrame]:
    """The unadjusted SBS and model-difference rows of every level, over all scenarios and per
    scenario category."""
    frames = []
    for level, keys in EQUIVALENCE_LEVELS.items():
        for split in (keys, (*keys, "scenario_category")):
            fm = coarsen(summed.fine, ("model_id", *split))
            cells = fm.cells.select("model_id", *split).with_columns(pl.lit(level).alias("level"))
            frames.append(_rows(cells, fm.values, "delta", margins.delta, alpha))
            frames.append(_differences(cells, fm.values, split, margins.model_difference, alpha))
    return frames


def _rows(cells: pl.DataFrame, values: F64, quantity: str, margin: float, alpha: float) -> pl.DataFrame:
    """One TOST row per column of ``values`` (faces × cells), keyed by ``cells``."""
    res = tost(values, margin, alpha=alpha)
    return cells.with_columns(
        quantity=pl.lit(quantity),
        margin=pl.lit(margin),
        ci_level=pl.lit(1.0 - 2.0 * alpha),
        estimate=pl.Series(res.estimate),
        ci_low=pl.Series(res.ci_low),
        ci_high=pl.Series(res.ci_high),
        statistic=pl.Series(res.statistic),
        p=pl.Series(res.p),
        p_shift=pl.Series(res.p_shift),
        n=pl.Series(res.n, dtype=pl.Int64),
    )


def _differences(
    cells: pl.DataFrame, values: F64, keys: tuple[str, ...], margin: float, alpha: float
) -> pl.DataFrame:
    """The TOST rows of every pair of models' per-face difference in the cells both have."""
    indexed = cells.with_row_index("column")
    frames = []
    for first, second in combinations(sorted(cells["model_id"].unique().to_list()), 2):
        pairs = (
            indexed.filter(pl.col("model_id") == first)
            .join(indexed.filter(pl.col("model_id") == second), on=list(keys), suffix="_other")
            .sort(list(keys), nulls_last=True)
        )
        diff = values[:, pairs["column"].to_numpy()] - values[:, pairs["column_other"].to_numpy()]
        keyed = pairs.select("model_id", pl.col("model_id_other").alias("other_model_id"), *keys, "level")
        frames.append(_rows(keyed, diff, "model_difference", margin, alpha))
    return pl.concat(frames, how="diagonal_relaxed") if frames else pl.DataFrame()

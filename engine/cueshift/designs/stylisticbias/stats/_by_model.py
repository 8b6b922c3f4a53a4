"""Per-model versions of seed 000 Tables 3 and 11 (the paper pools them over models; Tables 2 and
9 are per model already), composed from the pooled tables' own functions.

All models go through one call: the model id is folded into the table's attribute key
(``model ∘ value``), so each cell is the pooled function's cell on one model's rows — the same
per-face means and tests, and the same bootstrap draws when every model judged the same faces —
while the rows are read once and the BH family spans every model's cells.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import polars as pl

from cueshift.designs.stylisticbias.constants import DIMENSIONS, TABLE3_CATEGORY_MAP
from cueshift.designs.stylisticbias.stats._attributes import (
    category_demographic_table,
    demographic_variation_table,
)
from cueshift.designs.stylisticbias.stats._group_cells import GROUP_CELL_COLUMNS
from cueshift.designs.stylisticbias.stats._summed import SummedDelta
from cueshift.errors import CueshiftError
from cueshift.stats import ALPHA, Resampling, returns

#: Joins the model id to an attribute key while the models share one call (ASCII unit separator).
MODEL_FOLD: Final = "\x1f"


def _fold(delta: pl.DataFrame, key: str) -> pl.DataFrame:
    """``key`` := ``model_id ∘ key``, so that cells of different models never merge."""
    if delta["model_id"].str.contains(MODEL_FOLD, literal=True).any():
        raise CueshiftError("delta: a model_id contains the ASCII unit separator (\\x1f)")
    return delta.with_columns(
        pl.concat_str([pl.col("model_id"), pl.col(key)], separator=MODEL_FOLD).alias(key)
    )


def _unfold(table: pl.DataFrame, key: str) -> pl.DataFrame:
    """Split ``model_id ∘ key`` back into ``model_id`` and ``key``."""
    parts = pl.col(key).str.split_exact(MODEL_FOLD, 1)
    return table.with_columns(
        parts.struct.field("field_0").alias("model_id"), parts.struct.field("field_1").alias(key)
    )


@returns("table11_by_model")
def variation_table_by_model(
    delta: pl.DataFrame,
    *,
    alpha: float = ALPHA,
    resampling: Resampling = Resampling(),
    summed: SummedDelta | None = None,
) -> pl.DataFrame:
    r"""Table 11 per model: mean Δ per model × variation value × demographic group.

    Cell :math:`(m, v, g)`: :math:`\frac{1}{|F_g|}\sum_{f\in F_g}\bar\Delta_{f,m,v}`, the face's
    mean Δ of value :math:`v` over model :math:`m`'s scenarios; face-level bootstrap CI and WSRT
    as :func:`demographic_variation_table` computes them on that model's rows alone. ``p_adj``:
    BH over **every cell of every model** (Table 11: the cells of one pooled table); the
    sign-reversal flags compare a model's own groups, significance from that ``p_adj``.
    ``summed``: ``delta`` already summed (:func:`summed_delta`); the rows are not read again.
    """

    def folded(frame: pl.DataFrame) -> pl.DataFrame:
        return _fold(frame, "variation_value")

    table = demographic_variation_table(
        folded(delta) if summed is None else delta,
        summed=summed.relabelled(folded) if summed is not None else None,
        dimensions=DIMENSIONS,
        alpha=alpha,
        resampling=resampling,
    )
    return (
        _unfold(table, "variation_value")
        .select("model_id", *table.columns)
        .sort("model_id", "variation_category", "variation_value", "dimension", "group")
    )


@returns("table3_by_model")
def category_table_by_model(
    delta: pl.DataFrame,
    *,
    category_map: Mapping[str, str] = TABLE3_CATEGORY_MAP,
    resampling: Resampling = Resampling(),
    summed: SummedDelta | None = None,
) -> pl.DataFrame:
    r"""Table 3 per model: SBS per model × attribute category × demographic group, and the Table 3
    cell (``group = "(mean of groups)"``: the unweighted mean of the group estimates, WSRT on all
    faces), as :func:`category_demographic_table` computes them on one model's rows.

    ``p_adj``: BH within each dimension × row kind over **every model's** categories (Table 3:
    one pooled column of categories). ``summed``: as :func:`variation_table_by_model`.
    """

    def folded(frame: pl.DataFrame) -> pl.DataFrame:
        merged = frame.with_columns(pl.col("variation_category").replace(dict(category_map)))
        return _fold(merged, "variation_category")

    table = category_demographic_table(
        folded(delta) if summed is None else delta,
        summed=summed.relabelled(folded) if summed is not None else None,
        category_map={},
        resampling=resampling,
    )
    return (
        _unfold(table, "variation_category")
        .select("model_id", "variation_category", *GROUP_CELL_COLUMNS, "n_obs")
        .sort("model_id", "variation_category", "dimension", "group")
    )

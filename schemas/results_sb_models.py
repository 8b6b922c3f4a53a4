"""Result tables of the StylisticBias design: agreement between models (Fig. 5) and model comparisons
with error bars: paired SBS differences, clustered standard errors, design effects, sign reversals
with evidence."""

from __future__ import annotations

import pandera.polars as pa
import polars as pl

from cueshift.schemas._result_base import ResultModel
from cueshift.schemas._result_sb_base import Interval, Result


class CrossModelSchema(Interval, Result):
    """``result_cross_model``: Pearson r, slope, sign reversals per model pair (Fig. 5)."""

    model_a: str
    model_b: str
    estimate: float | None = pa.Field(nullable=True, ge=-1.0, le=1.0)
    statistic: float | None = pa.Field(nullable=True)
    df: float | None = pa.Field(nullable=True, ge=0.0)
    p_value: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)
    slope: float | None = pa.Field(nullable=True)
    intercept: float | None = pa.Field(nullable=True)
    slope_reverse: float | None = pa.Field(nullable=True)
    n_sign_reversed: pl.Int64 = pa.Field(ge=0)
    category_ranking_preserved: bool
    n: pl.Int64 = pa.Field(ge=0)
    test: str = pa.Field(isin=["pearson"])


#: These result tables by name (the table is ``result_<name>``).
MODELS_RESULTS: dict[str, type[ResultModel]] = {
    "cross_model": CrossModelSchema,
}

"""Result table of the StylisticBias design: equivalence to no shift at the study's declared
smallest effects of interest (``[equivalence]``; two one-sided tests, docs/equivalence.md)."""

from __future__ import annotations

import pandera.polars as pa
import polars as pl

from cueshift.schemas._result_base import ResultModel, count, nullable, one_of, pvalue
from cueshift.schemas._result_stylisticbias_base import Interval, Tested


class EquivalenceSchema(Tested, Interval):
    """``result_equivalence``: per quantity (``delta``: a model's SBS; ``model_difference``: the
    SBS of ``model_id`` minus that of ``other_model_id`` on the same faces; ``vs``: a model's
    Variation Strength of a demographic ``dimension``, Table 2) × level (variation category or
    value; ``dimension`` for ``vs``) × scenario category (null: all scenarios), the estimate, its
    ``ci_level`` (1 − 2α) interval, the binding one-sided t (``statistic``; null for ``vs``),
    the equivalence ``p`` against ``margin`` (TOST; for ``vs`` one-sided, VS < margin) and
    ``p_adj`` (BH within quantity × level × model), the test of 0 (``p_shift``,
    ``p_shift_adj``), ``n`` faces and the ``verdict``."""

    quantity: str = one_of("delta", "model_difference", "vs")
    level: str = one_of("variation_category", "variation_value", "dimension")
    model_id: str
    other_model_id: str | None = nullable()
    variation_category: str | None = nullable()
    variation_value: str | None = nullable()
    dimension: str | None = nullable()
    scenario_category: str | None = nullable()
    margin: float = pa.Field(gt=0.0)
    ci_level: float = pa.Field(gt=0.0, lt=1.0)
    p_shift: float | None = pvalue()
    p_shift_adj: float | None = pvalue()
    n: pl.Int64 = count()
    verdict: str | None = pa.Field(nullable=True, isin=["shift", "equivalent to no shift", "inconclusive"])

    @pa.dataframe_check
    @classmethod
    def keyed_by_its_quantity(cls, data: pa.PolarsData) -> pl.LazyFrame:
        """A ``vs`` row names its ``dimension`` (level ``dimension``) and no attribute; the SBS
        rows name an attribute and no dimension."""
        is_vs = pl.col("quantity") == "vs"
        ok = (
            pl.when(is_vs)
            .then(
                pl.col("dimension").is_not_null()
                & pl.col("variation_category").is_null()
                & (pl.col("level") == "dimension")
            )
            .otherwise(
                pl.col("dimension").is_null()
                & pl.col("variation_category").is_not_null()
                & (pl.col("level") != "dimension")
            )
        )
        return data.lazyframe.select(ok.alias("ok"))


#: These result tables by name (the table is ``result_<name>``).
EQUIVALENCE_RESULTS: dict[str, type[ResultModel]] = {"equivalence": EquivalenceSchema}

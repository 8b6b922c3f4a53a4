"""Result tables of the StylisticBias design: crossed demographic subgroups (e.g. age x gender)
and per-model versions of Tables 2, 3, 9 and 11 (Tables 2 and 9 are per model already; their
crossed versions are per model too)."""

from __future__ import annotations

import pandera.polars as pa
import polars as pl

from cueshift.schemas._result_base import ResultModel, share
from cueshift.schemas._result_stylisticbias_base import GroupCell, Interval, Result, Tested


class Untested(ResultModel):
    """Why a row has no test (too few faces for it); null when it was tested."""

    untested_reason: str | None = pa.Field(nullable=True)


class Pooled(ResultModel):
    """Partially pooled cells beside the raw ones: the empirical Bayes estimate shrunk
    towards the cell's parent, Morris's interval (checked to contain it, within Δ's range) and
    ``shrinkage``, the fraction of the way to the parent (0: raw kept, 1: the parent)."""

    pooled_estimate: float | None = pa.Field(nullable=True, ge=-1.0, le=1.0)
    pooled_ci_low: float | None = pa.Field(nullable=True)
    pooled_ci_high: float | None = pa.Field(nullable=True)
    shrinkage: float | None = share()


class CrossedVariationSchema(GroupCell, Untested, Pooled):
    """``result_table11_crossed``: mean Δ per variation value x crossed group (e.g. elderly x
    female), BH over every tested cell of every crossed pair."""

    variation_category: str
    variation_value: str


class CrossedCategorySchema(GroupCell, Untested):
    """``result_table3_crossed``: SBS per attribute category x crossed group."""

    variation_category: str


class CrossedVariationStrengthSchema(Interval, Result):
    """``result_table2_crossed``: VS per model x crossed dimension (the columns of
    ``result_table2_vs``, population std: VS <= 0.5); ``n_faces_min`` = faces of the smallest
    crossed group."""

    model_id: str
    dimension: str
    estimate: float | None = pa.Field(nullable=True, ge=0.0, le=0.5)
    plugin_estimate: float | None = pa.Field(nullable=True, ge=0.0, le=0.5)
    n_groups: pl.Int64 = pa.Field(ge=0)
    n_faces_min: pl.Int64 = pa.Field(ge=0)
    n: pl.Int64 = pa.Field(ge=0)
    ddof: pl.Int32 = pa.Field(isin=[0])


class CrossedDemographicTestSchema(Tested, Untested):
    """``result_demographic_tests_crossed``: KW / label permutation per model x scenario x crossed
    dimension on base phi; ``n_group_min`` = faces of the smallest crossed group."""

    model_id: str
    dimension: str
    scenario_category: str
    scenario_id: str
    test: str = pa.Field(isin=["kruskal-wallis", "label-permutation"])
    df: float | None = pa.Field(nullable=True, ge=0.0)
    effect_size: float | None = pa.Field(nullable=True)
    n: pl.Int64 = pa.Field(ge=0)
    n_group_min: pl.Int64 | None = pa.Field(nullable=True, ge=0)


class CrossedSignificanceShareSchema(Result):
    """``result_table9_crossed``: share of scenarios with a significant crossed-group difference."""

    model_id: str
    dimension: str
    estimate: float = pa.Field(ge=0.0, le=1.0)
    n_significant: pl.Int64 = pa.Field(ge=0)
    n: pl.Int64 = pa.Field(ge=0)
    test: str
    alpha: float = pa.Field(gt=0.0, lt=1.0)


class CategoryByModelSchema(GroupCell):
    """``result_table3_by_model``: Table 3 per model x attribute category x dimension x group."""

    model_id: str
    variation_category: str


class VariationByModelSchema(GroupCell, Pooled):
    """``result_table11_by_model``: Table 11 per model x variation value x demographic group, BH
    over every cell of every model."""

    model_id: str
    variation_category: str
    variation_value: str
    sign_reversal: bool
    sign_reversal_both: bool
    #: sign change within the dimension: 'both significant', 'difference significant' (MWU, BH) or
    #: 'not distinguishable'; null without a sign change (cueshift.stats reversal_flags)
    reversal_evidence: str | None = pa.Field(
        nullable=True, isin=["both significant", "difference significant", "not distinguishable"]
    )
    reversal_p_adj: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)


#: These result tables by name (the table is ``result_<name>``).
SUBGROUPS_RESULTS: dict[str, type[ResultModel]] = {
    "table3_by_model": CategoryByModelSchema,
    "table11_by_model": VariationByModelSchema,
    "table2_crossed": CrossedVariationStrengthSchema,
    "demographic_tests_crossed": CrossedDemographicTestSchema,
    "table9_crossed": CrossedSignificanceShareSchema,
    "table3_crossed": CrossedCategorySchema,
    "table11_crossed": CrossedVariationSchema,
}

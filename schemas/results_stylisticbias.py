"""Result tables of the StylisticBias design (seed 000): ``result_<name>`` written by the
analyses of :mod:`cueshift.designs.stylisticbias` through :mod:`cueshift.stats`.

Column names are fixed across tables: ``estimate, ci_low, ci_high, statistic, df, p,
p_adj, n`` plus grouping columns.
"""

from __future__ import annotations

import pandera.polars as pa
import polars as pl

from cueshift.schemas._result_base import TOLERANCE, ResultModel
from cueshift.schemas._result_stylisticbias_base import GroupCell, Interval, Result, Tested
from cueshift.schemas.results_stylisticbias_audit import AUDIT_RESULTS
from cueshift.schemas.results_stylisticbias_compat import compat_results
from cueshift.schemas.results_stylisticbias_effects import EFFECTS_RESULTS
from cueshift.schemas.results_stylisticbias_equivalence import EQUIVALENCE_RESULTS
from cueshift.schemas.results_stylisticbias_missing import MISSING_RESULTS
from cueshift.schemas.results_stylisticbias_models import MODELS_RESULTS
from cueshift.schemas.results_stylisticbias_noise import NOISE_RESULTS
from cueshift.schemas.results_stylisticbias_quality import QUALITY_RESULTS
from cueshift.schemas.results_stylisticbias_subgroups import SUBGROUPS_RESULTS, Pooled

#: Largest VS with the sample std (``ddof = 1``): two means 0 and 1, std √½.
VS_MAX_SAMPLE_STD = 0.5**0.5 + 1e-12


class SbsSchema(Tested, Interval):
    """``result_sbs``: SBS / |SBS| per level (model, variation category/value, scenario category,
    scenario, model × variation × scenario cell, demographic group), per model and pooled."""

    level: str = pa.Field(
        isin=[
            "model",
            "variation_category",
            "variation_value",
            "scenario_category",
            "scenario",
            "cell",
            "demographic_group",
        ]
    )
    model_id: str
    dimension: str | None = pa.Field(nullable=True)
    group: str | None = pa.Field(nullable=True)
    variation_category: str | None = pa.Field(nullable=True)
    variation_value: str | None = pa.Field(nullable=True)
    scenario_category: str | None = pa.Field(nullable=True)
    scenario_id: str | None = pa.Field(nullable=True)
    estimate: float | None = pa.Field(nullable=True, ge=-1.0, le=1.0)
    abs_sbs: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)
    abs_ci_low: float | None = pa.Field(nullable=True)
    abs_ci_high: float | None = pa.Field(nullable=True)
    phi_variation: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)
    phi_base: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)
    effect_size: float | None = pa.Field(nullable=True)
    test: str = pa.Field(isin=["wilcoxon", "sign-flip"])
    ci_method: str = pa.Field(isin=["bca", "percentile"])
    n: pl.Int64 = pa.Field(ge=0)
    n_obs: pl.Int64 = pa.Field(ge=0)


class VariationStrengthSchema(Interval, Result):
    """``result_table2_vs``: VS per model × dimension (Table 2): bias-corrected ``estimate`` with
    its interval, the paper's ``plugin_estimate``; VS ≤ 0.5 with ``ddof = 0``, ≤ √½ with 1."""

    model_id: str
    dimension: str
    estimate: float | None = pa.Field(nullable=True, ge=0.0, le=VS_MAX_SAMPLE_STD)
    plugin_estimate: float | None = pa.Field(nullable=True, ge=0.0, le=VS_MAX_SAMPLE_STD)
    n_groups: pl.Int64 = pa.Field(ge=0)
    n: pl.Int64 = pa.Field(ge=0)
    ddof: pl.Int32 = pa.Field(isin=[0, 1])

    @pa.dataframe_check
    @classmethod
    def population_std_range(cls, data: pa.PolarsData) -> pl.LazyFrame:
        """With ``ddof = 0`` (population std of shares) VS, both estimates and the bounds, is ≤ 0.5."""
        cols = ("estimate", "plugin_estimate", "ci_low", "ci_high")
        ok = pl.all_horizontal([(pl.col(c) <= 0.5 + TOLERANCE).fill_null(True) for c in cols])
        return data.lazyframe.select((ok | (pl.col("ddof") != 0)).alias("ok"))


class DemographicTestSchema(Tested):
    """``result_demographic_tests``: KW / MWU per model × scenario × dimension on base φ."""

    model_id: str
    dimension: str
    scenario_category: str
    scenario_id: str
    test: str = pa.Field(isin=["kruskal-wallis", "mann-whitney", "label-permutation"])
    df: float | None = pa.Field(nullable=True, ge=0.0)
    effect_size: float | None = pa.Field(nullable=True)
    n: pl.Int64 = pa.Field(ge=0)


class SignificanceShareSchema(Result):
    """``result_table9``: share of scenarios with a significant demographic difference."""

    model_id: str
    dimension: str
    estimate: float = pa.Field(ge=0.0, le=1.0)
    n_significant: pl.Int64 = pa.Field(ge=0)
    n: pl.Int64 = pa.Field(ge=0)
    test: str
    alpha: float = pa.Field(gt=0.0, lt=1.0)


class CategoryDemographicSchema(GroupCell):
    """``result_table3``: SBS per attribute category × dimension × group (Table 3)."""

    variation_category: str
    estimate: float | None = pa.Field(nullable=True, ge=-1.0, le=1.0)


class AsymmetrySchema(Tested):
    """``result_negativity_asymmetry``: one-sided WSRT of |negative cue| > |positive cue| (§5.2)."""

    negative_value: str
    positive_value: str
    median_abs_negative: float | None = pa.Field(nullable=True, ge=0.0)
    median_abs_positive: float | None = pa.Field(nullable=True, ge=0.0)
    estimate: float | None = pa.Field(nullable=True, ge=0.0)
    effect_size: float | None = pa.Field(nullable=True)
    test: str
    alternative: str = pa.Field(isin=["greater"])
    n: pl.Int64 = pa.Field(ge=0)


class ModelSummarySchema(Interval, Result):
    """``result_table5``: per-model SBS, Cohen's d, share of zero and of |Δ| ≥ 0.25 (Table 5)."""

    model_id: str
    estimate: float | None = pa.Field(nullable=True, ge=-1.0, le=1.0)
    cohens_d: float | None = pa.Field(nullable=True)
    zero_share: float = pa.Field(ge=0.0, le=1.0)
    large_share: float = pa.Field(ge=0.0, le=1.0)
    n: pl.Int64 = pa.Field(ge=0)
    n_obs: pl.Int64 = pa.Field(ge=0)
    large_threshold: float = pa.Field(gt=0.0)


class CumulativeAbsSbsSchema(Result):
    """``result_cumulative_abs_sbs``: |SBS| per attribute, sorted, cumulative share (Fig. 2)."""

    model_id: str
    rank: pl.Int64 = pa.Field(ge=1)
    variation_category: str
    variation_value: str
    abs_sbs: float = pa.Field(ge=0.0, le=1.0)
    share: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)
    cumulative_share: float | None = pa.Field(nullable=True, ge=0.0, le=1.0 + 1e-9)
    within_threshold: bool | None = pa.Field(nullable=True)
    n_to_threshold: pl.Int64 | None = pa.Field(nullable=True, ge=1)
    threshold: float = pa.Field(gt=0.0, le=1.0)
    n: pl.Int64 = pa.Field(ge=0)


class CategoryRankingSchema(Result):
    """``result_category_ranking``: scenario-category |SBS| and its rank per model (§5.3)."""

    model_id: str
    scenario_category: str
    abs_sbs: float = pa.Field(ge=0.0, le=1.0)
    rank: pl.Int64 = pa.Field(ge=1)
    ranking_preserved: bool
    n_adjacent_reversals: pl.Int64 = pa.Field(ge=0)
    n: pl.Int64 = pa.Field(ge=0)


class DemographicVariationSchema(GroupCell, Pooled):
    """``result_table11``: mean Δ per variation × demographic group, WSRT, BH over all cells (Table 11)."""

    variation_category: str
    variation_value: str
    estimate: float | None = pa.Field(nullable=True, ge=-1.0, le=1.0)
    sign_reversal: bool
    sign_reversal_both: bool
    #: sign change within the dimension: 'both significant', 'difference significant' (MWU, BH) or
    #: 'not distinguishable'; null without a sign change (cueshift.stats reversal_flags)
    reversal_evidence: str | None = pa.Field(
        nullable=True, isin=["both significant", "difference significant", "not distinguishable"]
    )
    reversal_p_adj: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)


#: The StylisticBias result tables by name (the table is ``result_<name>``).
STYLISTICBIAS_RESULTS: dict[str, type[ResultModel]] = {
    "sbs": SbsSchema,
    "table2_vs": VariationStrengthSchema,
    "demographic_tests": DemographicTestSchema,
    "table9": SignificanceShareSchema,
    "table3": CategoryDemographicSchema,
    "negativity_asymmetry": AsymmetrySchema,
    "table5": ModelSummarySchema,
    "cumulative_abs_sbs": CumulativeAbsSbsSchema,
    "category_ranking": CategoryRankingSchema,
    "table11": DemographicVariationSchema,
    **EFFECTS_RESULTS,
    **EQUIVALENCE_RESULTS,
    **SUBGROUPS_RESULTS,
    **MODELS_RESULTS,
    **MISSING_RESULTS,
    **NOISE_RESULTS,
    **QUALITY_RESULTS,
    **AUDIT_RESULTS,
}
STYLISTICBIAS_RESULTS.update(compat_results(STYLISTICBIAS_RESULTS))

#: The stored result tables (unprefixed: ``result_<name>``): the design's ``result_schemas``.
RESULT_TABLES: dict[str, type[ResultModel]] = STYLISTICBIAS_RESULTS

"""Result tables of the StylisticBias design: agreement between models (Fig. 5) and model comparisons
with error bars: paired SBS differences, clustered standard errors, design effects, sign reversals
with evidence."""

from __future__ import annotations

import pandera.polars as pa
import polars as pl

from cueshift.schemas._result_base import ResultModel
from cueshift.schemas._result_stylisticbias_base import Interval, Result, Tested


class CrossModelSchema(Interval, Result):
    """``result_cross_model``: Pearson r, slope, sign reversals per model pair (Fig. 5).

    ``n_sign_reversed``: scenarios whose point estimates have opposite signs (the paper's
    count); of these, ``n_reversed_significant`` have evidence (both SBS significant with
    opposite signs; before D51 also a significant paired difference alone),
    ``n_reversed_not_distinguishable`` have neither that nor a significant paired difference, and
    the rest only a significant paired difference (not counted: the signs are not shown)."""

    model_a: str
    model_b: str
    estimate: float | None = pa.Field(nullable=True, ge=-1.0, le=1.0)
    statistic: float | None = pa.Field(nullable=True)
    df: float | None = pa.Field(nullable=True, ge=0.0)
    p: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)
    slope: float | None = pa.Field(nullable=True)
    intercept: float | None = pa.Field(nullable=True)
    slope_reverse: float | None = pa.Field(nullable=True)
    n_sign_reversed: pl.Int64 = pa.Field(ge=0)
    n_reversed_significant: pl.Int64 = pa.Field(ge=0)
    n_reversed_not_distinguishable: pl.Int64 = pa.Field(ge=0)
    category_ranking_preserved: bool
    n: pl.Int64 = pa.Field(ge=0)
    test: str = pa.Field(isin=["pearson"])


class ModelDifferenceSchema(Tested, Interval, Result):
    """``result_model_differences``: paired SBS difference (model a − model b) per model pair ×
    level (the model, a variation value, a scenario), face-clustered bootstrap CI, paired test,
    clustered and naive standard errors and their design effect (Miller 2024)."""

    level: str = pa.Field(isin=["model", "variation_value", "scenario"])
    model_a: str
    model_b: str
    variation_category: str | None = pa.Field(nullable=True)
    variation_value: str | None = pa.Field(nullable=True)
    scenario_category: str | None = pa.Field(nullable=True)
    scenario_id: str | None = pa.Field(nullable=True)
    sbs_a: float | None = pa.Field(nullable=True, ge=-1.0, le=1.0)
    sbs_b: float | None = pa.Field(nullable=True, ge=-1.0, le=1.0)
    estimate: float | None = pa.Field(nullable=True, ge=-2.0, le=2.0)
    se_clustered: float | None = pa.Field(nullable=True, ge=0.0)
    se_naive: float | None = pa.Field(nullable=True, ge=0.0)
    design_effect: float | None = pa.Field(nullable=True, ge=0.0)
    effect_size: float | None = pa.Field(nullable=True)
    test: str = pa.Field(isin=["wilcoxon", "sign-flip"])
    ci_method: str = pa.Field(isin=["bca", "percentile"])
    n: pl.Int64 = pa.Field(ge=0)
    n_obs: pl.Int64 = pa.Field(ge=0)


#: These result tables by name (the table is ``result_<name>``).
MODELS_RESULTS: dict[str, type[ResultModel]] = {
    "cross_model": CrossModelSchema,
    "model_differences": ModelDifferenceSchema,
}

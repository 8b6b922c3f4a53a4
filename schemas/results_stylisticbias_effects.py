"""Result tables of the StylisticBias design: face-level ANOVAs and the mixed model (Table 10), Table 4
(fashion style x age), crossed random effects (faces and scenarios), and the bootstrap intervals of
Table 4's contrast, partial eta^2 and R2."""

from __future__ import annotations

import pandera.polars as pa
import polars as pl

from cueshift.schemas._result_base import ResultModel
from cueshift.schemas._result_stylisticbias_base import GroupCell, Result


class FaceAnovaSchema(Result):
    """``result_face_anova``: one-way face-level ANOVAs (Table 10, ANOVA rows)."""

    outcome: str = pa.Field(isin=["delta", "base_phi"])
    dimension: str
    test: str = pa.Field(isin=["anova-F"])
    statistic: float | None = pa.Field(nullable=True, ge=0.0)
    df: float = pa.Field(ge=0.0)
    df_resid: float = pa.Field(ge=0.0)
    p: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)
    estimate: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)
    ci_low: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)
    ci_high: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)
    n: pl.Int64 = pa.Field(ge=0)
    n_resamples: pl.Int64 = pa.Field(ge=0)


class MixedModelSchema(Result):
    """``result_mixed_model``: partial η², F, df and R² of the face random-intercept model (Table 10)."""

    term: str = pa.Field(isin=["variation_category", "scenario_category", "R2_marginal", "R2_conditional"])
    test: str = pa.Field(isin=["wald-F", "nakagawa-r2"])
    statistic: float | None = pa.Field(nullable=True, ge=0.0)
    df: float | None = pa.Field(nullable=True, ge=0.0)
    df_resid: float | None = pa.Field(nullable=True, ge=0.0)
    p: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)
    estimate: float = pa.Field(ge=0.0, le=1.0)
    n_levels: pl.Int64 | None = pa.Field(nullable=True, ge=1)
    n: pl.Int64 = pa.Field(ge=0)
    n_groups: pl.Int64 = pa.Field(ge=0)
    var_face: float = pa.Field(ge=0.0)
    var_resid: float = pa.Field(ge=0.0)
    var_fixed: float = pa.Field(ge=0.0)
    reml: bool
    converged: bool
    ci_low: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)
    ci_high: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)
    n_refits: pl.Int64 = pa.Field(ge=0)


class CrossedModelSchema(Result):
    """``result_crossed_model``: Table 10's model with crossed random intercepts for faces and
    scenarios: partial η², F, df and R² with face-bootstrap intervals, and the variances."""

    term: str = pa.Field(isin=["variation_category", "scenario_category", "R2_marginal", "R2_conditional"])
    test: str = pa.Field(isin=["wald-F", "nakagawa-r2"])
    statistic: float | None = pa.Field(nullable=True, ge=0.0)
    df: float | None = pa.Field(nullable=True, ge=0.0)
    df_resid: float | None = pa.Field(nullable=True, ge=0.0)
    p: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)
    estimate: float = pa.Field(ge=0.0, le=1.0)
    ci_low: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)
    ci_high: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)
    n_levels: pl.Int64 | None = pa.Field(nullable=True, ge=1)
    n: pl.Int64 = pa.Field(ge=0)
    n_faces: pl.Int64 = pa.Field(ge=0)
    n_scenarios: pl.Int64 = pa.Field(ge=0)
    var_face: float = pa.Field(ge=0.0)
    var_scenario: float = pa.Field(ge=0.0)
    var_resid: float = pa.Field(ge=0.0)
    var_fixed: float = pa.Field(ge=0.0)
    n_refits: pl.Int64 = pa.Field(ge=0)
    converged: bool


class VarianceComponentsSchema(Result):
    """``result_variance_components``: variance of each source (face, scenario, residual, fixed
    effects) of the crossed model and its share of the total and of the random part."""

    source: str = pa.Field(isin=["face", "scenario", "residual", "fixed"])
    estimate: float = pa.Field(ge=0.0)
    sd: float = pa.Field(ge=0.0)
    share: float = pa.Field(ge=0.0, le=1.0)
    share_random: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)
    n_levels: pl.Int64 | None = pa.Field(nullable=True, ge=0)
    n: pl.Int64 = pa.Field(ge=0)
    converged: bool


class FashionAgeSchema(GroupCell):
    """``result_table4``: SBS per fashion style × age group and elderly − young contrasts (Table 4)."""

    variation_value: str


#: These result tables by name (the table is ``result_<name>``).
EFFECTS_RESULTS: dict[str, type[ResultModel]] = {
    "face_anova": FaceAnovaSchema,
    "mixed_model": MixedModelSchema,
    "table4": FashionAgeSchema,
    "crossed_model": CrossedModelSchema,
    "variance_components": VarianceComponentsSchema,
}

"""The tables ``cueshift plan`` writes (``plan_power``, ``plan_components``, ``plan_cost``,
``plan_curve``): exact columns and dtypes, probabilities in [0, 1], ordered intervals,
non-negative counts. :func:`validate_plan` checks a frame and names the first bad row and field.
"""

from __future__ import annotations

from typing import Final

import pandera.errors as pa_errors
import pandera.polars as pa
import polars as pl

from cueshift.errors import SchemaViolation
from cueshift.schemas._result_base import ResultModel, count, nullable, share
from cueshift.schemas.results import nan_to_null

#: The tests of the built-in designs' plans. ``design``, ``test`` and ``unit`` are not pinned to a
#: list: any registered design's planner may write its own (docs/designs.md).
PLAN_TESTS: Final = (
    "sbs_attribute",
    "table11_cell",
    "vs_scenario",
    "model_pair",
    "cohort_preference",
    "position_bias",
    "paired_wilcoxon",
    "paired_kruskal",
    "similarity_ci",
)


class PlanPowerSchema(ResultModel):
    """``plan_power``: one row per test × protocol variant. ``effect`` is the anticipated effect
    (mean per-unit value), ``power`` the analytic power at BH's level ``alpha_level`` in the
    test's family, ``power_sim`` the share of simulated studies that reject (null when not
    simulated), ``mde`` the smallest effect detected with the target power at ``alpha_mde``
    (null: none up to the scale's end), ``units_for_target`` the units needed for the target
    effect (null: unreachable)."""

    design: str
    protocol: str
    test: str
    family: str
    model_id: str
    target: str
    unit: str
    n_units: pl.Int64 = count()
    n_tests: pl.Int64 = pa.Field(ge=1)
    n_true: pl.Int64 = count()
    effect: float = nullable()
    sd_unit: float = nullable(ge=0.0)
    alpha_level: float = share()
    power: float = share()
    power_sim: float = share()
    power_sim_se: float = nullable(ge=0.0)
    n_sims: pl.Int64 = count(nullable=True)
    alpha_mde: float = share()
    mde: float = nullable(ge=0.0)
    ci_half_width: float = nullable(ge=0.0)
    units_for_target: pl.Int64 = count(nullable=True)
    units_planned: pl.Int64 = count()


class PlanComponentsSchema(ResultModel):
    """``plan_components``: each variance component or nuisance parameter a plan used, with its
    interval when estimated from a pilot, and where it comes from."""

    design: str
    model_id: str
    component: str
    estimate: float = nullable()
    ci_low: float = nullable()
    ci_high: float = nullable()
    source: str


class PlanCostSchema(ResultModel):
    """``plan_cost``: per model (and ``(total)``) the images, prompts, forward passes, prefill
    tokens with and without the shared image prefix, and GPU-hours (null without a throughput)."""

    design: str
    model_id: str
    mode: str
    units: pl.Int64 = count()
    images: pl.Int64 = count()
    variation_images: pl.Int64 = count()
    placebo_images: pl.Int64 = count()  # noise-floor placebos, judged like variations (docs/decisions.md#d1)
    prompts_per_image: pl.Int64 = count(nullable=True)
    prompts: pl.Int64 = count()
    variation_prompts: pl.Int64 = count()
    forward_passes: pl.Int64 = count()
    prefill_tokens: float = nullable(ge=0.0)
    prefill_tokens_shared_prefix: float = nullable(ge=0.0)
    image_tokens: pl.Int64 = count()
    question_tokens: float = nullable(ge=0.0)
    seconds_per_prompt: float = nullable(ge=0.0)
    gpu_hours: float = nullable(ge=0.0)
    throughput_source: str


class PlanCurveSchema(ResultModel):
    """``plan_curve``: power of one test against the number of units, per effect size: analytic
    and simulated (with its Monte Carlo standard error)."""

    design: str
    model_id: str
    units: pl.Int64 = count()
    effect: float
    alpha_level: float = share()
    power: float = share()
    power_sim: float = share()
    power_sim_se: float = nullable(ge=0.0)
    n_sims: pl.Int64 = count()
    seconds: float = nullable(ge=0.0)


PLAN_SCHEMAS: Final[dict[str, type[ResultModel]]] = {
    "plan_power": PlanPowerSchema,
    "plan_components": PlanComponentsSchema,
    "plan_cost": PlanCostSchema,
    "plan_curve": PlanCurveSchema,
}


def validate_plan(name: str, frame: pl.DataFrame) -> pl.DataFrame:
    """Check ``frame`` against :data:`PLAN_SCHEMAS` ``[name]`` (NaN and infinities become null first).

    Raises
    ------
    SchemaViolation
        One line naming the table, the first bad row and field and the broken check.
    """
    model = PLAN_SCHEMAS[name]
    floats = [c for c, t in frame.schema.items() if t == pl.Float64]
    cleaned = nan_to_null(
        frame.with_columns(
            [pl.when(pl.col(c).is_infinite()).then(None).otherwise(pl.col(c)).alias(c) for c in floats]
        )
    )
    try:
        return model.validate(cleaned, lazy=True)
    except pa_errors.SchemaErrors as exc:
        first = exc.failure_cases.row(0, named=True)
        more = f" (+{exc.failure_cases.height - 1} more)" if exc.failure_cases.height > 1 else ""
        where = f"row {first.get('index')}, field {first.get('column')!r}"
        raise SchemaViolation(
            f"{name}: {where}: value {first.get('failure_case')!r} breaks {first.get('check')}{more}"
        ) from None


__all__ = [
    "PLAN_SCHEMAS",
    "PLAN_TESTS",
    "PlanComponentsSchema",
    "PlanCostSchema",
    "PlanCurveSchema",
    "PlanPowerSchema",
    "validate_plan",
]

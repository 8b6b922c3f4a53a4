"""``cueshift plan``: the planner of the study's design, its tables checked and written.

A design's planner is what its ``planner()`` gives (:class:`~cueshift.power.request.DesignPlanner`),
reached through the design registry; a design without one is refused with one line. The result's
tables are brought to the columns of ``schemas/plan.py`` and validated; :func:`write_plan` writes
them as CSV and Parquet, the power curve as a PNG and the report section as markdown, and writes
nothing when the output folder cannot be used.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import polars as pl

from cueshift.designs import design_named, designs
from cueshift.errors import ConfigError, CueshiftError
from cueshift.power.families import Targets
from cueshift.power.kernels import prepare_kernels
from cueshift.power.request import DesignPlanner, PlanRequest, PlanResult
from cueshift.schemas.plan import PLAN_SCHEMAS, validate_plan


def planners() -> dict[str, DesignPlanner]:
    """The planner of every registered design that has one, by design name."""
    found = {name: design.planner() for name, design in designs().items()}
    return {name: planner for name, planner in found.items() if planner is not None}


def planner_of(design: str) -> DesignPlanner:
    """The planner of the design called ``design``.

    Raises
    ------
    ConfigError
        No such design, or the design has no planner (one line naming the plannable ones).
    """
    planner = design_named(design).planner()
    if planner is None:
        raise ConfigError(f"design {design!r} has no planner; plannable: {', '.join(planners())}")
    return planner


def targets_for(design: str, effect: float | None, power: float, q: float, level: float = 0.95) -> Targets:
    """The plan's targets; ``effect`` None takes the design's default target effect.

    Raises
    ------
    ConfigError
        The design has no planner.
    """
    return planner_of(design).targets(effect, power=power, q=q, level=level)


def _conform(name: str, frame: pl.DataFrame, design: str, unit: str) -> pl.DataFrame:
    """``frame`` with the columns of ``name``'s schema, in order, cast to their dtypes (missing: null)."""
    schema = PLAN_SCHEMAS[name].to_schema().columns
    extra = {"design": design, "unit": unit}
    columns = []
    for col, spec in schema.items():
        dtype = spec.dtype.type
        if col in frame.columns:
            expr = pl.col(col)
        elif col in extra:
            expr = pl.lit(extra[col])
        else:
            expr = pl.lit(None)
        columns.append(expr.cast(dtype).alias(col))
    return validate_plan(
        name,
        frame.select(columns)
        if frame.height
        else pl.DataFrame(schema={c: s.dtype.type for c, s in schema.items()}),
    )


def plan_study(request: PlanRequest) -> PlanResult:
    """Plan ``request.study``: its design's planner, then every table conformed and validated.

    A first run compiles the statistics kernels first, with a one-line note on
    ``request.progress`` (:func:`cueshift.power.kernels.prepare_kernels`).

    Raises
    ------
    ConfigError
        The study's design has no planner.
    CueshiftError
        A bad pilot (another design, empty, not a study database).
    """
    design = request.study.design
    planner = planner_of(design)
    prepare_kernels(request.progress)
    result = planner.plan(request)
    return replace(
        result,
        power=_conform("plan_power", result.power, design, planner.unit),
        components=_conform("plan_components", result.components, design, planner.unit),
        cost=_conform("plan_cost", result.cost, design, planner.unit),
        curve=_conform("plan_curve", result.curve, design, planner.unit),
    )


def write_plan(result: PlanResult, out: Path) -> list[Path]:
    """Write the plan's tables (CSV and Parquet), the curve figure and ``plan.md`` under ``out``.

    Raises
    ------
    CueshiftError
        ``out`` exists and is not a folder, or cannot be created.
    """
    from cueshift.plan.console import plan_markdown

    if out.exists() and not out.is_dir():
        raise CueshiftError(f"{out}: exists and is not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CueshiftError(f"{out}: cannot create the folder ({exc.strerror})") from None
    written = []
    for stale in ("plan_curve.csv", "plan_curve.parquet", "power_curve.png"):
        (out / stale).unlink(missing_ok=True)  # a plan without a curve leaves none of an earlier one
    for name, frame in (
        ("plan_power", result.power),
        ("plan_components", result.components),
        ("plan_cost", result.cost),
        ("plan_curve", result.curve),
    ):
        if frame.height == 0:
            continue
        for suffix, write in ((".csv", frame.write_csv), (".parquet", frame.write_parquet)):
            path = out / f"{name}{suffix}"
            write(path)
            written.append(path)
    figure = None
    if result.figure is not None:
        figure = "power_curve.png"
        (out / figure).write_bytes(result.figure)
        written.append(out / figure)
    (out / "plan.md").write_text(plan_markdown(result, figure), encoding="utf-8")
    written.append(out / "plan.md")
    return written


__all__ = ["plan_study", "planner_of", "planners", "targets_for", "write_plan"]

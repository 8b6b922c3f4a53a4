"""The plan as a report section and on the console, through :mod:`cueshift.render`'s declared tables.

The plan's tidy tables are registered in an in-memory DuckDB and each displayed table is a
:class:`~cueshift.render.TableSpec` over them, rendered to markdown (``plan.md``, with the power
curve figure) or to rich (the console): the same cells either way.
"""

from __future__ import annotations

import duckdb
import polars as pl
from rich.console import Console
from rich.markup import escape

from cueshift._console import indented
from cueshift.power.request import PlanResult
from cueshift.render import Col, TableSpec, fmt_integer, number, percent, stub, to_markdown, to_rich

SUMMARY = TableSpec(
    key="plan-summary",
    title="Power at the planned size (medians over each family's tests)",
    sql="""
        SELECT test, model_id, count(*) AS n_tests, median(abs(effect)) AS effect,
               median(power) AS power, median(power_sim) AS power_sim, median(mde) AS mde,
               median(ci_half_width) AS half_width, max(units_for_target) AS units_for_target,
               max(units_planned) AS planned, any_value(unit) AS unit
        FROM plan_power WHERE protocol = 'planned'
        GROUP BY test, model_id ORDER BY min(rowid), model_id
    """,
    columns=(
        stub("test", "test"),
        stub("model_id", "model"),
        Col("n_tests", "tests", fmt_integer),
        Col("effect", "|effect|", number(4)),
        Col("power", "power", percent(0)),
        Col("power_sim", "simulated", percent(0)),
        Col("mde", "MDE", number(4)),
        Col("half_width", "CI ±", number(4)),
        Col("planned", "planned", fmt_integer),
        Col("units_for_target", "needed", fmt_integer),
        stub("unit", "unit"),
    ),
    notes=(
        "power: normal theory at the level BH reaches in the family; simulated: share of simulated "
        "studies whose BH-adjusted p <= q; MDE: smallest |effect| detected with the target power; "
        "needed: units so that the target effect reaches the target power (every test of the family).",
    ),
)
TRADEOFFS = TableSpec(
    key="plan-tradeoffs",
    title="Trade-offs: one attribute's SBS test under other protocols (medians over attributes)",
    sql="""
        SELECT protocol, model_id, median(power) AS power, median(mde) AS mde,
               max(units_for_target) AS units_for_target
        FROM plan_power WHERE test = 'sbs_attribute'
        GROUP BY protocol, model_id ORDER BY min(rowid), model_id
    """,
    columns=(
        stub("protocol", "protocol"),
        stub("model_id", "model"),
        Col("power", "power", percent(0)),
        Col("mde", "MDE", number(4)),
        Col("units_for_target", "faces needed (every value)", fmt_integer),
    ),
)
COST = TableSpec(
    key="plan-cost",
    title="Cost per model",
    sql="SELECT * FROM plan_cost",
    columns=(
        stub("model_id", "model"),
        stub("mode", "mode"),
        Col("images", "images", fmt_integer),
        Col("placebo_images", "of them placebos", fmt_integer),
        Col("prompts", "prompts", fmt_integer),
        Col("forward_passes", "forward passes", fmt_integer),
        Col("prefill_tokens", "prefill tokens", fmt_integer),
        Col("prefill_tokens_shared_prefix", "with shared image prefix", fmt_integer),
        Col("gpu_hours", "GPU-hours", number(1)),
        stub("throughput_source", "throughput"),
    ),
)
COMPONENTS = TableSpec(
    key="plan-components",
    title="Variance components and nuisance parameters (φ scale)",
    sql="SELECT * FROM plan_components ORDER BY rowid",
    columns=(
        stub("model_id", "model"),
        stub("component", "component"),
        Col("estimate", "estimate", number(5)),
        Col("ci_low", "CI low", number(5)),
        Col("ci_high", "CI high", number(5)),
    ),
)


def _connection(result: PlanResult) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    for name, frame in (
        ("plan_power", result.power),
        ("plan_cost", result.cost),
        ("plan_components", result.components),
    ):
        con.register(f"__{name}", frame.to_arrow())
        con.execute(f"CREATE TABLE {name} AS SELECT * FROM __{name}")
    return con


def _tables(result: PlanResult) -> list[TableSpec]:
    tables = [SUMMARY]
    if result.power.filter(pl.col("test") == "sbs_attribute")["protocol"].n_unique() > 1:
        tables.append(TRADEOFFS)
    return [*tables, COST, COMPONENTS]


def plan_markdown(result: PlanResult, figure: str | None = None) -> str:
    """The plan as a markdown report section (``figure``: the power curve's file name)."""
    con = _connection(result)
    try:
        parts = [
            f"## Plan: {result.design}",
            "",
            f"Inputs: {result.source}.",
            "",
            *[f"- {note}" for note in result.notes],
            "",
        ]
        for spec in _tables(result):
            parts += [to_markdown(spec.render(con)), ""]
        if figure:
            parts += [f"![Power against faces: analytic lines, simulated points]({figure})", ""]
        return "\n".join(parts)
    finally:
        con.close()


def print_plan(result: PlanResult, console: Console) -> None:
    """The plan's summary, trade-offs and cost on the console."""
    con = _connection(result)
    try:
        console.print(f"[bold]plan[/] ({result.design}): inputs from {escape(result.source)}")
        for note in result.notes:  # indented; wrapped at the terminal's width, one line piped
            console.print(indented(note, console))
        for spec in _tables(result)[:-1]:
            console.print(to_rich(spec.render(con)))
    finally:
        con.close()


__all__ = ["plan_markdown", "print_plan"]

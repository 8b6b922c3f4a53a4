"""The console's verdicts at the study's smallest effects of interest (``result_equivalence``):
per model and variation category, *shift*, *equivalent to no shift* or *inconclusive* in place
of a bare "not significant"."""

from __future__ import annotations

import duckdb
import polars as pl
from rich.console import Console
from rich.markup import escape

from cueshift._console import FitTable
from cueshift.render import PLAIN_MINUS, fmt_ci, fmt_num


def print_equivalence(con: duckdb.DuckDBPyConnection, console: Console) -> None:
    """Print each model's SBS per variation category over all scenarios with its TOST interval and
    verdict, then how many rows of ``result_equivalence`` get each verdict (nothing without it)."""
    found = con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = 'result_equivalence'"
    ).fetchall()
    if not found or found[0][0] == 0:
        return
    table = con.sql("SELECT * FROM result_equivalence").pl()
    rows = table.filter(
        (pl.col("quantity") == "delta")
        & (pl.col("level") == "variation_category")
        & pl.col("scenario_category").is_null()
    ).sort("variation_category", "model_id")
    if rows.height == 0:
        return
    level = rows["ci_level"][0]
    margin = rows["margin"][0]
    tab = FitTable(
        title=f"Shift or no shift at the smallest effect of interest |Δ| < {fmt_num(margin)} (TOST)",
        title_justify="left",
    )
    for col in ("attribute", "model", "SBS", f"{round(100 * level)}% CI", "verdict", "faces"):
        tab.add_column(col, justify="left" if col in ("attribute", "model", "verdict") else "right")
    for r in rows.iter_rows(named=True):
        tab.add_row(
            escape(r["variation_category"]),
            escape(r["model_id"]),
            fmt_num(r["estimate"], signed=True),
            fmt_ci(r["ci_low"], r["ci_high"], minus=PLAIN_MINUS, missing=""),
            r["verdict"] or "(no test)",
            str(r["n"]),
        )
    console.print(tab)
    counts = table.group_by("quantity", "verdict").len().sort("quantity", "verdict", nulls_last=True)
    parts = [
        f"{r['quantity'].replace('_', ' ')}: {r['len']} {r['verdict'] or 'untested'}"
        for r in counts.iter_rows(named=True)
    ]
    console.print(
        "  shift: BH-adjusted t test < α and the interval excludes 0; equivalent to no shift: "
        "BH-adjusted TOST p < α (the interval inside ±margin); else inconclusive. "
        f"All rows of result_equivalence: {'; '.join(parts)}"
    )

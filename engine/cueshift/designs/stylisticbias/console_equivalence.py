"""The console's verdicts at the study's smallest effects of interest (``result_equivalence``):
each model's SBS per variation category, each model's VS per demographic dimension and each pair
of models' differences get *shift*, *equivalent to no shift* or *inconclusive* in place of a bare
"not significant"."""

from __future__ import annotations

import duckdb
import polars as pl
from rich.console import Console
from rich.markup import escape

from cueshift._console import FitTable
from cueshift.render import PLAIN_MINUS, ci_label, fmt_ci, fmt_num

_ALL_SCENARIOS = pl.col("scenario_category").is_null()


def print_equivalence(con: duckdb.DuckDBPyConnection, console: Console) -> None:
    """Print, over all scenarios, each model's SBS per variation category and VS per dimension
    with its interval and verdict, each pair of models' verdicts per category counted, then how
    many rows of ``result_equivalence`` get each verdict (nothing without the table)."""
    found = con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = 'result_equivalence'"
    ).fetchall()
    if not found or found[0][0] == 0:
        return
    table = con.sql("SELECT * FROM result_equivalence").pl()
    if "dimension" not in table.columns:  # written before the VS rows (result schema 9)
        table = table.with_columns(pl.lit(None, dtype=pl.String).alias("dimension"))
    sbs = table.filter((pl.col("quantity") == "delta") & (pl.col("level") == "variation_category"))
    _verdict_table(console, sbs.filter(_ALL_SCENARIOS), "variation_category", "attribute", "SBS", "|Δ|")
    vs = table.filter(pl.col("quantity") == "vs")
    _verdict_table(console, vs.filter(_ALL_SCENARIOS), "dimension", "dimension", "VS", "VS")
    _print_pairs(console, table)
    if table.height == 0:
        return
    counts = table.group_by("quantity", "verdict").len().sort("quantity", "verdict", nulls_last=True)
    parts = [
        f"{r['quantity'].replace('_', ' ')}: {r['len']} {r['verdict'] or 'untested'}"
        for r in counts.iter_rows(named=True)
    ]
    console.print(
        "  shift: BH-adjusted test of 0 < α and the interval excludes 0; equivalent to no shift: "
        "BH-adjusted TOST p < α (the interval inside ±margin; VS: its upper bound below the margin); "
        f"else inconclusive. All rows of result_equivalence: {'; '.join(parts)}"
    )


def _verdict_table(console: Console, rows: pl.DataFrame, key: str, label: str, name: str, bound: str) -> None:
    """One row per ``key`` × model: the estimate, its interval, the verdict and the faces."""
    if rows.height == 0:
        return
    rows = rows.sort(key, "model_id")
    signed = name != "VS"  # a magnitude: no sign
    level, margin = rows["ci_level"][0], rows["margin"][0]
    tab = FitTable(
        title=f"Shift or no shift at the smallest effect of interest {bound} < {fmt_num(margin)}",
        title_justify="left",
    )
    for col in (label, "model", name, ci_label(level), "verdict", "faces"):
        tab.add_column(col, justify="left" if col in (label, "model", "verdict") else "right")
    for r in rows.iter_rows(named=True):
        tab.add_row(
            escape(r[key]),
            escape(r["model_id"]),
            fmt_num(r["estimate"], signed=signed),
            fmt_ci(r["ci_low"], r["ci_high"], signed=signed, minus=PLAIN_MINUS, missing=""),
            r["verdict"] or "(no test)",
            str(r["n"]),
        )
    console.print(tab)


def _print_pairs(console: Console, table: pl.DataFrame) -> None:
    """Per pair of models, how many variation categories' SBS differences get each verdict."""
    is_pair = (pl.col("quantity") == "model_difference") & (pl.col("level") == "variation_category")
    pairs = table.filter(is_pair & _ALL_SCENARIOS)
    if pairs.height == 0:
        return
    counts = pairs.group_by("model_id", "other_model_id", "verdict").len()
    tab = FitTable(
        title=f"Do models differ? Attributes per verdict, |SBS difference| < {fmt_num(pairs['margin'][0])}",
        title_justify="left",
    )
    verdicts = ("shift", "equivalent to no shift", "inconclusive")
    for col in ("models", *verdicts, "untested"):
        tab.add_column(col, justify="left" if col == "models" else "right")
    for (first, second), group in sorted(counts.group_by("model_id", "other_model_id"), key=lambda kv: kv[0]):
        n = dict(group.select("verdict", "len").iter_rows())
        tab.add_row(escape(f"{first} {PLAIN_MINUS} {second}"), *(str(n.get(v, 0)) for v in (*verdicts, None)))
    console.print(tab)

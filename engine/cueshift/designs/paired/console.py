"""The console summary of the paired design: significant scenarios per family, the halo table."""

from __future__ import annotations

import polars as pl
from rich.console import Console

from cueshift._console import FitTable
from cueshift.designs.paired.section import PairedConfig
from cueshift.render import ci_label, fmt_num, fmt_percent
from cueshift.render.marks import stars


def print_summary(results: dict[str, pl.DataFrame], console: Console, config: PairedConfig) -> None:
    """R-style console summary: significant scenarios per family and the top of the halo table."""
    share = results["paired_significance_share"].filter(pl.col("level").is_in(["all", "family"]))
    table = FitTable(
        title=f"Attractiveness bias: scenarios with p{'_BH' if config.correction == 'bh' else ''} "
        f"< {config.alpha} (seed 001 §4.1)"
    )
    for column in ("model", "test", "family", "significant", "share", ci_label(config.confidence)):
        table.add_column(column, justify="left" if column in ("model", "test", "family") else "right")
    for row in share.sort(["model_id", "test", "level", "group"]).iter_rows(named=True):
        table.add_row(
            row["model_id"],
            row["test"],
            row["group"],
            f"{row['n_significant']}/{row['n']}",
            fmt_percent(row["estimate"]),
            f"{fmt_percent(row['ci_low'])}–{fmt_percent(row['ci_high'])}",
        )
    console.print(table)
    halo = results["paired_halo"]
    top = FitTable(title="Halo table (App. D Table 5): mean s filtered vs original, top 10 by H")
    for column in ("model", "choice 1", "choice 2", "gap", "s filtered", "s original", "H", ""):
        top.add_column(column, justify="left" if column in ("model", "choice 1", "choice 2") else "right")
    for (model_id,), part in halo.group_by("model_id", maintain_order=True):
        for row in part.head(10).iter_rows(named=True):
            top.add_row(
                model_id,
                row["choice_1"],
                row["choice_2"],
                fmt_num(row["gap"], 2, signed=True),
                fmt_num(row["mean_filtered"], 2),
                fmt_num(row["mean_original"], 2),
                fmt_num(row["statistic"], 2),
                stars(row["p_adj"]),
            )
    console.print(top)
    console.print("Tables: " + ", ".join(f"result_{name}" for name in results), soft_wrap=True)

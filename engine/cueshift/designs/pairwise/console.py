"""The console summary of the pairwise design: seed 002 Table 4 per model × cohort, position bias."""

from __future__ import annotations

import polars as pl
from rich.console import Console

from cueshift._console import FitTable
from cueshift.designs.pairwise.section import PairwiseConfig
from cueshift.render import PLAIN_MISSING, ci_label, fmt_num, fmt_p, fmt_percent, fmt_percent_ci, fmt_pvalue


def print_summary(results: dict[str, pl.DataFrame], console: Console, config: PairwiseConfig) -> None:
    """Seed 002 Table 4 layout: k/n, p̂, Wilson CI, OR, BH q per model × cohort; position bias."""
    table = FitTable(
        title=f"Trials won by the {config.target_group} stimulus "
        "(seed 002 Table 4; exact binomial vs 0.5, BH)"
    )
    for column in ("model", "cohort", "k/n", "p̂", ci_label(config.confidence), "OR", "q"):
        table.add_column(column, justify="left" if column in ("model", "cohort") else "right")
    for row in results["pairwise_cohort"].iter_rows(named=True):
        table.add_row(
            row["model_id"],
            row["cohort"],
            f"{row['k']}/{row['n']}",
            fmt_num(row["estimate"], 2),
            fmt_percent_ci(row["ci_low"], row["ci_high"]),
            fmt_num(row["odds_ratio"], 2),
            fmt_pvalue(row["p_adj"]),
        )
    console.print(table)
    for row in results["pairwise_position"].iter_rows(named=True):
        console.print(
            f"{row['model_id']}: P(left) = {fmt_num(row['estimate'])} "
            f"[{fmt_num(row['ci_low'])}, {fmt_num(row['ci_high'])}], "
            f"p = {fmt_p(row['p'])}; same winner in both orders: "
            f"{fmt_percent(row['consistency'], 1, missing=PLAIN_MISSING)}",
            highlight=False,
        )
    console.print("Tables: " + ", ".join(f"result_{name}" for name in results), soft_wrap=True)

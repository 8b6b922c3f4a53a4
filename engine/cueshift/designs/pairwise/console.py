"""The console summary of the pairwise design: seed 002 Table 4 per model × cohort, position bias."""

from __future__ import annotations

import polars as pl
from rich.console import Console
from rich.table import Table

from cueshift.designs.pairwise.section import PairwiseConfig


def print_summary(results: dict[str, pl.DataFrame], console: Console, config: PairwiseConfig) -> None:
    """Seed 002 Table 4 layout: k/n, p̂, Wilson CI, OR, BH q per model × cohort; position bias."""
    table = Table(
        title=f"Trials won by the {config.target_group} stimulus "
        "(seed 002 Table 4; exact binomial vs 0.5, BH)"
    )
    for column in ("model", "cohort", "k/n", "p̂", "95% CI", "OR", "q"):
        table.add_column(column, justify="left" if column in ("model", "cohort") else "right")
    for row in results["pairwise_cohort"].iter_rows(named=True):
        q = row["p_adj"]
        table.add_row(
            row["model_id"],
            row["cohort"],
            f"{row['k']}/{row['n']}",
            f"{row['estimate']:.2f}",
            f"[{100 * row['ci_low']:.0f}–{100 * row['ci_high']:.0f}]",
            f"{row['odds_ratio']:.2f}",
            "< 10⁻³" if q < 1e-3 else f"{q:.3f}",
        )
    console.print(table)
    for row in results["pairwise_position"].iter_rows(named=True):
        consistency = row["consistency"]
        console.print(
            f"{row['model_id']}: P(left) = {row['estimate']:.3f} "
            f"[{row['ci_low']:.3f}, {row['ci_high']:.3f}], "
            f"p = {row['p_value']:.2g}; same winner in both orders: "
            f"{'—' if consistency is None else f'{consistency:.1%}'}",
            highlight=False,
        )
    console.print("Tables: " + ", ".join(f"result_{name}" for name in results), soft_wrap=True)

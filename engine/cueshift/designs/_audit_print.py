"""The console lines of ``cueshift audit``: :func:`print_audit` (how many variations failed, and
the failures by measure) and the one-line notes the audit prints as it runs.
"""

from __future__ import annotations

import polars as pl
from rich.console import Console

from cueshift._console import FitTable


def print_audit(rows: pl.DataFrame, console: Console) -> None:
    """One line ("12 of 1,530 variations failed the audit") and the failures by measure."""
    n_variations = rows["image_id"].n_unique()
    failed = rows.filter(pl.col("failed"))
    n_failed = failed["image_id"].n_unique()
    plural = "" if n_variations == 1 else "s"
    _say(console, f"{n_failed:,} of {n_variations:,} variation{plural} failed the audit")
    if not failed.height:
        return
    table = FitTable("check", "measure", title="Failures by measure")
    table.add_column("variations failed", justify="right")
    by_measure = failed.group_by("check_kind", "measure").agg(n=pl.col("image_id").n_unique())
    for kind, measure, n in by_measure.sort("n", "measure", descending=[True, False]).iter_rows():
        table.add_row(kind, measure, f"{n:,}")
    console.print(table)


def _say(console: Console, line: str) -> None:
    console.print(line, markup=False, highlight=False, soft_wrap=True)

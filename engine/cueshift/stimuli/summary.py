"""What a build did: calls by outcome, losses by demographic cell and by attribute value, and where
the pool became unbalanced.

The allocation gives every cell the same number of bases (within one); a cell that kept fewer
than the others after refusals and failures is named, as is an attribute value whose kept share
falls more than :data:`UNBALANCED_GAP` below the build's (the seed dropped a fashion style
because its refusals skewed the pool).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import duckdb
import polars as pl

from cueshift.stimuli.slots import Slot

#: A value whose kept share is this far below the build's is reported as unbalancing the pool.
UNBALANCED_GAP = 0.10


@dataclass(frozen=True)
class BuildSummary:
    """The counts of a build and the lines to print."""

    database: Path
    manifest: Path
    n_slots: int
    n_kept: int
    n_tries_this_run: int
    outcomes: dict[str, int]
    by_cell: pl.DataFrame
    by_value: pl.DataFrame
    lines: tuple[str, ...]


def _final(con: duckdb.DuckDBPyConnection, slots: list[Slot]) -> pl.DataFrame:
    """Per planned slot: stage, cell, value, kept, and its tries' outcomes counted."""
    planned = pl.DataFrame(
        {
            "image_id": [s.image_id for s in slots],
            "stage": [s.stage for s in slots],
            "cell": [s.cell_label for s in slots],
            "value": [f"{s.feature_key}={s.value}" if s.feature_key else None for s in slots],
        },
        schema={"image_id": pl.String, "stage": pl.String, "cell": pl.String, "value": pl.String},
    )
    tries = con.sql("SELECT image_id, outcome FROM generation").pl()
    counts = tries.group_by("image_id").agg(
        *(pl.col("outcome").eq(o).sum().alias(o) for o in ("ok", "refused", "failed", "rejected"))
    )
    return planned.join(counts, on="image_id", how="left").fill_null(0).with_columns(kept=pl.col("ok") > 0)


def _losses(frame: pl.DataFrame, by: str) -> pl.DataFrame:
    return (
        frame.group_by(by)
        .agg(
            planned=pl.len(),
            kept=pl.col("kept").sum(),
            refused=pl.col("refused").sum(),
            failed=pl.col("failed").sum(),
            rejected=pl.col("rejected").sum(),
        )
        .sort(by)
    )


def summarize(
    con: duckdb.DuckDBPyConnection, slots: list[Slot], database: Path, manifest: Path, n_tries: int
) -> BuildSummary:
    """The summary of ``slots`` as stored in ``con``."""
    final = _final(con, slots)
    by_cell = _losses(final.filter(pl.col("stage") == "base"), "cell")
    by_value = _losses(final.filter(pl.col("stage") == "variation"), "value")
    outcomes = {o: int(final[o].sum()) for o in ("ok", "refused", "failed", "rejected")}
    lines = [
        f"{int(final['kept'].sum())} of {final.height} images kept; calls: "
        + ", ".join(f"{n} {o}" for o, n in outcomes.items())
    ]
    if by_cell.height and by_cell["kept"].max() != by_cell["kept"].min():
        most = int(by_cell["kept"].max())  # type: ignore[arg-type]
        short = by_cell.filter(
            pl.col("kept") < most - 1 if by_cell["planned"].n_unique() > 1 else pl.col("kept") < most
        )
        for row in short.iter_rows(named=True):
            lines.append(
                f"unbalanced: cell {row['cell']} kept {row['kept']} of {row['planned']} bases "
                f"({row['refused']} refused, {row['failed']} failed tries)"
            )
    if by_value.height and by_value["planned"].sum():
        overall = float(by_value["kept"].sum()) / float(by_value["planned"].sum())
        for row in by_value.iter_rows(named=True):
            share = row["kept"] / row["planned"]
            if share < overall - UNBALANCED_GAP:
                lines.append(
                    f"unbalanced: {row['value']} kept {row['kept']} of {row['planned']} ({share:.0%} vs "
                    f"{overall:.0%} overall; {row['refused']} refused, {row['failed']} failed, "
                    f"{row['rejected']} rejected tries)"
                )
    return BuildSummary(
        database,
        manifest,
        final.height,
        int(final["kept"].sum()),
        n_tries,
        outcomes,
        by_cell,
        by_value,
        tuple(lines),
    )


__all__ = ["UNBALANCED_GAP", "BuildSummary", "summarize"]

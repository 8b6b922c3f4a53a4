"""The console summary of the probe design: model-human similarity, its link to reliability, structure,
the similarity's baselines and each model's verdicts against its random twin."""

from __future__ import annotations

import polars as pl
from rich.console import Console

from cueshift._console import FitTable
from cueshift.render import fmt_num
from cueshift.schemas.results_probe import TWIN_VERDICTS


def print_summary(results: dict[str, pl.DataFrame], console: Console) -> None:
    """Mean model–human similarity per model, its correlation with reliability, structure similarity."""
    table = FitTable(
        title="Model-human similarity of impressions (seed 004 Eq. 4) and its link to human reliability"
    )
    for column in ("model", "mean ρ", "attributes p_BH < .05", "ρ(IRR, similarity)", "Frobenius", "ARI"):
        table.add_column(column, justify="left" if column == "model" else "right")
    sim = (
        results["probe_similarity"]
        .group_by("model_id", maintain_order=True)
        .agg(
            pl.col("estimate").mean().alias("mean"),
            (pl.col("p_adj") < 0.05).sum().alias("sig"),
            pl.len().alias("n"),
        )
    )
    irr = results.get("probe_reliability_similarity", pl.DataFrame({"name": [], "estimate": []}))
    structure = results.get(
        "probe_structure", pl.DataFrame({"model_id": [], "estimate": [], "adjusted_rand": []})
    )
    for row in sim.iter_rows(named=True):
        r = irr.filter(pl.col("name") == row["model_id"])["estimate"] if irr.height else pl.Series([])
        s = structure.filter(pl.col("model_id") == row["model_id"]) if structure.height else structure
        table.add_row(
            row["model_id"],
            fmt_num(row["mean"]),
            f"{row['sig']}/{row['n']}",
            fmt_num(r[0] if r.len() else None, 2),
            fmt_num(s["estimate"][0] if s.height else None),
            fmt_num(s["adjusted_rand"][0] if s.height else None, 2),
        )
    console.print(table)
    if "probe_baselines" in results:
        print_baselines(results["probe_baselines"], console)
        print_twin_verdicts(results["probe_baselines"], console)
    console.print("Tables: " + ", ".join(f"result_{name}" for name in results), soft_wrap=True)


def print_baselines(baselines: pl.DataFrame, console: Console) -> None:
    """Per model, means over attributes: similarity, its random twin's, image statistics alone, and
    the similarity net of them."""
    table = FitTable(title="Similarity beside its baselines (means over attributes; result_probe_baselines)")
    columns = ("model", "ρ model", "ρ random twin", "ρ image statistics", "ρ net of image statistics")
    for column in columns:
        table.add_column(column, justify="left" if column == "model" else "right")
    means = baselines.group_by("model_id", maintain_order=True).agg(
        pl.col("similarity", "random_similarity", "pixels_estimate", "partial_estimate").mean()
    )
    for row in means.iter_rows(named=True):
        table.add_row(
            row["model_id"],
            fmt_num(row["similarity"]),
            fmt_num(row["random_similarity"]),
            fmt_num(row["pixels_estimate"]),
            fmt_num(row["partial_estimate"]),
        )
    console.print(table)


def print_twin_verdicts(baselines: pl.DataFrame, console: Console) -> None:
    """Per model with a random twin: the mean ρ − ρ(twin) and how many attributes get each verdict
    (``result_probe_baselines.verdict``: only *captured* attributes beat the twin net of the image
    statistics)."""
    rows = baselines.filter(pl.col("verdict").is_not_null())
    if rows.height == 0:
        return
    table = FitTable(title="Against the random twin: attributes per verdict (BH over attributes)")
    for column in ("model", "mean ρ − twin", "captured", "image statistics only", "as twin", "below twin"):
        table.add_column(column, justify="left" if column == "model" else "right")
    counts = rows.group_by("model_id", maintain_order=True).agg(
        pl.col("twin_difference").mean().alias("mean"),
        pl.len().alias("n"),
        *((pl.col("verdict") == verdict).sum().alias(verdict) for verdict in TWIN_VERDICTS),
    )
    for row in counts.sort("model_id").iter_rows(named=True):
        table.add_row(
            row["model_id"],
            fmt_num(row["mean"]),
            *(f"{row[v]}/{row['n']}" for v in TWIN_VERDICTS),
        )
    console.print(table)

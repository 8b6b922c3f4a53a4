r"""Tables of the paired design drawn from its result tables (seed 001 §4.1, §4.3, App. C/D):
the halo table, shares of significant scenarios, the strongest group, Table 1 and the overlap
of attractiveness and demographic bias."""

from __future__ import annotations

import math
from collections.abc import Sequence

import polars as pl

from cueshift.stats import wilson_interval


def halo_table(bias: pl.DataFrame, halo_scenarios: Sequence[str], *, alpha: float = 0.05) -> pl.DataFrame:
    """The halo table (seed 001 App. D Table 5): positive-first trait scenarios, mean :math:`s` for
    filtered and original images, their gap, the Kruskal–Wallis H and its p-values, by decreasing H
    (significance marks are drawn at render time from ``p_adj``); ``halo``: ``p_adj < alpha`` and a
    positive gap."""
    kw = bias.filter((pl.col("test") == "kruskal-wallis") & pl.col("scenario_id").is_in(list(halo_scenarios)))
    return (
        kw.select(
            "model_id",
            "scenario_id",
            "choice_1",
            "choice_2",
            pl.col("estimate").alias("gap"),
            "mean_filtered",
            "mean_original",
            "statistic",
            "df",
            "p",
            "p_adj",
            "effect_size",
            "n",
        )
        .with_columns(
            ((pl.col("p_adj") < alpha) & (pl.col("gap") > 0)).alias("halo"),
        )
        .sort(["model_id", "statistic"], descending=[False, True], nulls_last=True)
    )


def significance_share(tests: pl.DataFrame, by: Sequence[str], *, alpha: float = 0.05) -> pl.DataFrame:
    """Share of scenarios with ``p_adj < alpha`` per ``by`` group (e.g. model × test × family),
    with a Wilson interval; ``n_positive`` counts the significant ones with a positive estimate."""
    grouped = tests.group_by(list(by), maintain_order=True).agg(
        (pl.col("p_adj") < alpha).sum().cast(pl.Int64).alias("n_significant"),
        ((pl.col("p_adj") < alpha) & (pl.col("estimate") > 0)).sum().cast(pl.Int64).alias("n_positive"),
        pl.col("p_adj").is_not_null().sum().cast(pl.Int64).alias("n"),
    )
    bounds = [
        wilson_interval(k, n) if n else (math.nan, math.nan)
        for k, n in grouped.select("n_significant", "n").iter_rows()
    ]
    return grouped.with_columns(
        (pl.col("n_significant") / pl.col("n")).alias("estimate"),
        pl.Series("ci_low", [b[0] for b in bounds]),
        pl.Series("ci_high", [b[1] for b in bounds]),
        pl.lit(alpha).alias("alpha"),
    )


def strongest_group(
    by_group: pl.DataFrame, *, alpha: float = 0.05, test: str = "kruskal-wallis"
) -> pl.DataFrame:
    """Per model × dimension × group: the number of scenarios in which the group shows the
    strongest significant attractiveness bias (largest H among groups with ``p_adj < alpha``);
    group ``(none)`` counts scenarios where no group is significant (seed 001 App. C)."""
    rows = by_group.filter(pl.col("test") == test)
    best = (
        rows.with_columns(pl.when(pl.col("p_adj") < alpha).then(pl.col("statistic")).alias("__h"))
        .sort(["__h", "group"], descending=[True, False], nulls_last=True)  # a tie in H: the first group
        .group_by(["model_id", "dimension", "scenario_id"], maintain_order=True)
        .agg(pl.col("group").first(), pl.col("__h").first())
        .with_columns(
            pl.when(pl.col("__h").is_null()).then(pl.lit("(none)")).otherwise(pl.col("group")).alias("group")
        )
    )
    n_scen = best.group_by(["model_id", "dimension"]).agg(pl.len().cast(pl.Int64).alias("n"))
    return (
        best.group_by(["model_id", "dimension", "group"])
        .agg(pl.len().cast(pl.Int64).alias("n_scenarios"))
        .join(n_scen, on=["model_id", "dimension"])
        .with_columns((pl.col("n_scenarios") / pl.col("n")).alias("estimate"))
        .sort(["model_id", "dimension", "n_scenarios", "group"], descending=[False, False, True, False])
    )


def attractiveness_vs_demographic(demographic: pl.DataFrame, *, alpha: float = 0.05) -> pl.DataFrame:
    r"""Seed 001 Table 1: per model × dimension, scenarios whose demographic bias (KW H across
    groups) is stronger among the originals :math:`F`, stronger among the filtered images
    :math:`F^b`, or shows no impact of attractiveness (neither image set significant)."""
    wide = demographic.filter(pl.col("image_set") != "all").pivot(
        on="image_set", index=["model_id", "dimension", "scenario_id"], values=["statistic", "p_adj"]
    )
    outcome = (
        pl.when(
            (pl.col("p_adj_original") >= alpha).fill_null(True)
            & (pl.col("p_adj_filtered") >= alpha).fill_null(True)
        )
        .then(pl.lit("no impact"))
        .when(pl.col("statistic_original") > pl.col("statistic_filtered"))
        .then(pl.lit("stronger in original"))
        .otherwise(pl.lit("stronger in filtered"))
    )
    counted = wide.with_columns(outcome.alias("outcome"))
    totals = counted.group_by(["model_id", "dimension"]).agg(pl.len().cast(pl.Int64).alias("n"))
    return (
        counted.group_by(["model_id", "dimension", "outcome"])
        .agg(pl.len().cast(pl.Int64).alias("n_scenarios"))
        .join(totals, on=["model_id", "dimension"])
        .with_columns((pl.col("n_scenarios") / pl.col("n")).alias("estimate"), pl.lit(alpha).alias("alpha"))
        .sort(["model_id", "dimension", "outcome"])
    )


def bias_overlap(bias: pl.DataFrame, demographic: pl.DataFrame, *, alpha: float = 0.05) -> pl.DataFrame:
    """Overlap of attractiveness bias and demographic bias (seed 001 §4.3.1, Fig. 4): per model ×
    dimension, scenarios with each bias (KW, ``p_adj < alpha``, all images) and with both;
    ``estimate`` = share of attractiveness-biased scenarios that also show the demographic bias."""
    attr = bias.filter(pl.col("test") == "kruskal-wallis").select(
        "model_id", "scenario_id", (pl.col("p_adj") < alpha).fill_null(False).alias("attractiveness")
    )
    demo = demographic.filter(pl.col("image_set") == "all").select(
        "model_id",
        "dimension",
        "scenario_id",
        (pl.col("p_adj") < alpha).fill_null(False).alias("demographic"),
    )
    both = demo.join(attr, on=["model_id", "scenario_id"], how="inner")
    return (
        both.group_by(["model_id", "dimension"], maintain_order=True)
        .agg(
            pl.col("attractiveness").sum().cast(pl.Int64).alias("n_attractiveness"),
            pl.col("demographic").sum().cast(pl.Int64).alias("n_demographic"),
            (pl.col("attractiveness") & pl.col("demographic")).sum().cast(pl.Int64).alias("n_both"),
            pl.len().cast(pl.Int64).alias("n"),
        )
        .with_columns(
            (pl.col("n_both") / pl.col("n_attractiveness")).alias("estimate"), pl.lit(alpha).alias("alpha")
        )
    )

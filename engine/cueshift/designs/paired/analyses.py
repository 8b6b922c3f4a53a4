"""The analyses of the paired design (seed 001), declared in :data:`DECLARED` (suite ``paired``).

Each reads :math:`s` (the ``phi`` view) of original and filtered images (:mod:`.inputs`) and
stores one ``result_paired_<name>`` table; the statistics are the compositions of
:mod:`cueshift.designs.paired.attractiveness`, :mod:`cueshift.designs.paired.demographic` and
:mod:`cueshift.designs.paired.summaries`. Tables that need demographic labels are written only
when at least one demographic dimension has two groups.
"""

from __future__ import annotations

import polars as pl

from cueshift.designs.paired.demographic import pair_group_bias
from cueshift.designs.paired.inputs import Inputs
from cueshift.designs.paired.scenarios import HALO_SCENARIOS, RACE_PAIRS
from cueshift.designs.paired.summaries import (
    attractiveness_vs_demographic,
    bias_overlap,
    halo_table,
    significance_share,
    strongest_group,
)
from cueshift.stats import AnalysisContext, Declarations

SUITE = "paired"

Context = AnalysisContext[Inputs]

#: The design's analyses, in the order they run and their tables and manifest rows are listed.
DECLARED = Declarations(SUITE)


@DECLARED(
    "paired_attractiveness",
    description="Attractiveness bias: s of filtered vs original per model x scenario (001 §4.1)",
    source="phi",
    grouping="model x scenario x test",
    statistic="Kruskal-Wallis H (the paper's), Wilcoxon signed-rank W; mean difference",
    family="model x test (BH over scenarios when [paired] correction = 'bh')",
)
def _attractiveness(ctx: Context) -> pl.DataFrame:
    return ctx.inputs.bias


@DECLARED(
    "paired_halo",
    description="Halo table: mean s filtered vs original on the positive-first traits (001 App. D Table 5)",
    source="result_paired_attractiveness",
    grouping="model x halo scenario",
    statistic="mean s per condition, their gap; Kruskal-Wallis H",
    family="as result_paired_attractiveness",
)
def _halo(ctx: Context) -> pl.DataFrame:
    halo = halo_table(ctx.inputs.bias, sorted(HALO_SCENARIOS), alpha=ctx.inputs.config.alpha)
    return halo


@DECLARED(
    "paired_significance_share",
    description="Share of scenarios with a significant attractiveness bias, overall and per family/category",
    source="result_paired_attractiveness",
    grouping="model x test x level (all, family, scenario category) x group",
    statistic="share of p_adj < alpha; Wilson interval",
    family="none",
)
def _share(ctx: Context) -> pl.DataFrame:
    bias, alpha = ctx.inputs.bias, ctx.inputs.config.alpha
    share = pl.concat(
        [
            significance_share(bias, ["model_id", "test"], alpha=alpha).with_columns(
                pl.lit("all").alias("level"), pl.lit("all").alias("group")
            ),
            significance_share(bias, ["model_id", "test", "family"], alpha=alpha)
            .with_columns(pl.lit("family").alias("level"))
            .rename({"family": "group"}),
            significance_share(bias, ["model_id", "test", "scenario_category"], alpha=alpha)
            .with_columns(pl.lit("scenario_category").alias("level"))
            .rename({"scenario_category": "group"}),
        ],
        how="diagonal_relaxed",
    )
    return share


@DECLARED(
    "paired_demographic",
    description="Demographic bias: Kruskal-Wallis across gender / age / race groups (001 §4.3.1)",
    source="phi",
    grouping="model x scenario x dimension x image set (all, original, filtered)",
    statistic="Kruskal-Wallis H; range of group means",
    family="model x dimension x image set",
)
def _demographic(ctx: Context) -> pl.DataFrame | None:
    if not ctx.inputs.dimensions:
        return None
    return ctx.inputs.demographic[0]


@DECLARED(
    "paired_demographic_means",
    description="Mean s per demographic group (001 App. E Table 6, App. F Table 7)",
    source="phi",
    grouping="model x scenario x dimension x image set x group",
    statistic="mean s",
    family="none",
)
def _demographic_means(ctx: Context) -> pl.DataFrame | None:
    if not ctx.inputs.dimensions:
        return None
    return ctx.inputs.demographic[1]


@DECLARED(
    "paired_attractiveness_by_group",
    description="Attractiveness bias within each demographic group (001 §4.3.2, Fig. 5)",
    source="phi",
    grouping="model x scenario x dimension x group x test",
    statistic="as result_paired_attractiveness",
    family="model x test x dimension x group",
)
def _by_group(ctx: Context) -> pl.DataFrame | None:
    if not ctx.inputs.dimensions:
        return None
    return ctx.inputs.by_group


@DECLARED(
    "paired_strongest_group",
    description="Group with the strongest significant attractiveness bias, scenario counts (001 App. C)",
    source="result_paired_attractiveness_by_group",
    grouping="model x dimension x group",
    statistic="scenarios with the largest H among significant groups",
    family="none",
)
def _strongest(ctx: Context) -> pl.DataFrame | None:
    if not ctx.inputs.dimensions:
        return None
    return strongest_group(ctx.inputs.by_group, alpha=ctx.inputs.config.alpha)


@DECLARED(
    "paired_attractiveness_vs_demographic",
    description="Demographic bias stronger among filtered, among original images, or no impact (001 Table 1)",
    source="result_paired_demographic",
    grouping="model x dimension x outcome",
    statistic="scenario counts",
    family="none",
)
def _versus(ctx: Context) -> pl.DataFrame | None:
    if not ctx.inputs.dimensions:
        return None
    table = attractiveness_vs_demographic(ctx.inputs.demographic[0], alpha=ctx.inputs.config.alpha)
    return table


@DECLARED(
    "paired_overlap",
    description="Scenarios with both an attractiveness and a demographic bias (001 §4.3.1, Fig. 4)",
    source="result_paired_attractiveness, result_paired_demographic",
    grouping="model x dimension",
    statistic="scenario counts and their share",
    family="none",
)
def _overlap(ctx: Context) -> pl.DataFrame | None:
    if not ctx.inputs.dimensions:
        return None
    overlap = bias_overlap(ctx.inputs.bias, ctx.inputs.demographic[0], alpha=ctx.inputs.config.alpha)
    return overlap


@DECLARED(
    "paired_race_jobs",
    description="The two races stereotypically associated with each race job (001 App. F Table 7)",
    source="phi",
    grouping="model x race job",
    statistic="Kruskal-Wallis H between the two groups; difference of mean s",
    family="model",
)
def _race_jobs(ctx: Context) -> pl.DataFrame | None:
    if "ethnicity" not in ctx.inputs.dimensions:
        return None
    jobs = pair_group_bias(
        ctx.inputs.scores, "ethnicity", RACE_PAIRS, correction=ctx.inputs.config.correction
    )
    return jobs if jobs.height else None

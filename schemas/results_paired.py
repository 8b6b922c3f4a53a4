"""Result tables of the paired original-vs-filtered design (seed 001): ``result_paired_<name>``,
written by :mod:`cueshift.designs.paired` from the statistics in ``designs/paired/attractiveness.py``,
``demographic.py`` and ``summaries.py``."""

from __future__ import annotations

import polars as pl

from cueshift.schemas._result_base import ResultModel, count, nullable, one_of, pvalue, share

KRUSKAL = "kruskal-wallis"


class _Scenario(ResultModel):
    """A model × scenario cell: the scenario's family, category and its two choices."""

    model_id: str
    family: str
    scenario_category: str
    scenario_id: str
    choice_1: str
    choice_2: str


class _Test(ResultModel):
    """A rank test: statistic (H or T+), its df, p, p_adj, effect size (ε² or r) and n."""

    statistic: float = nullable(ge=0.0)
    df: float = nullable(ge=0.0)
    p: float = pvalue()
    p_adj: float = pvalue()
    effect_size: float = nullable()
    n: pl.Int64 = count()


class _Attractiveness(_Scenario, _Test):
    """Filtered vs original images: Kruskal–Wallis (unpaired, Welch interval) and Wilcoxon
    signed-rank (per individual, paired t interval)."""

    mean_original: float = share()
    mean_filtered: float = share()
    test: str = one_of(KRUSKAL, "wilcoxon")
    estimate: float = nullable(ge=-1.0, le=1.0)  # a difference of shares; its interval is clamped to it
    ci_low: float = nullable()
    ci_high: float = nullable()


class AttractivenessSchema(_Attractiveness):
    """``result_paired_attractiveness``: attractiveness bias per model × scenario (§4.1)."""

    correction: str = one_of("none", "bh")


class HaloSchema(_Test):
    """``result_paired_halo``: App. D Table 5 on the positive-first trait scenarios (§4.2)."""

    model_id: str
    scenario_id: str
    choice_1: str
    choice_2: str
    gap: float = nullable()
    mean_filtered: float = share()
    mean_original: float = share()
    halo: bool = nullable()


class SignificanceShareSchema(ResultModel):
    """``result_paired_significance_share``: share of significant scenarios per model × test ×
    level (all, family, scenario category) with a Wilson interval (§4.1)."""

    model_id: str
    test: str = one_of(KRUSKAL, "wilcoxon")
    level: str = one_of("all", "family", "scenario_category")
    group: str
    n_significant: pl.Int64 = count()
    n_positive: pl.Int64 = count()
    n: pl.Int64 = count()
    estimate: float = share()
    ci_low: float = share()
    ci_high: float = share()
    alpha: float = share()


class DemographicSchema(_Scenario, _Test):
    """``result_paired_demographic``: Kruskal–Wallis across demographic groups per model ×
    scenario × dimension × image set; estimate = range of group means (§4.3.1, App. E/F)."""

    dimension: str
    image_set: str = one_of("all", "original", "filtered")
    test: str = one_of(KRUSKAL)
    estimate: float = nullable(ge=0.0)
    group_high: str = nullable()
    group_low: str = nullable()
    n_groups: pl.Int64 = count()


class DemographicMeansSchema(_Scenario):
    """``result_paired_demographic_means``: mean s per group (App. E Table 6, App. F Table 7)."""

    dimension: str
    image_set: str = one_of("all", "original", "filtered")
    group: str
    estimate: float = share()
    n: pl.Int64 = count()


class AttractivenessByGroupSchema(_Attractiveness):
    """``result_paired_attractiveness_by_group``: attractiveness bias within each demographic
    group (§4.3.2, Fig. 5, App. C)."""

    dimension: str
    group: str


class StrongestGroupSchema(ResultModel):
    """``result_paired_strongest_group``: scenarios in which each group shows the strongest
    significant bias; ``(none)``: no group significant (App. C)."""

    model_id: str
    dimension: str
    group: str
    n_scenarios: pl.Int64 = count()
    n: pl.Int64 = count()
    estimate: float = share()


class AttractivenessVsDemographicSchema(ResultModel):
    """``result_paired_attractiveness_vs_demographic``: Table 1, demographic bias stronger among
    the originals, among the filtered images, or no impact."""

    model_id: str
    dimension: str
    outcome: str = one_of("no impact", "stronger in original", "stronger in filtered")
    n_scenarios: pl.Int64 = count()
    n: pl.Int64 = count()
    estimate: float = share()
    alpha: float = share()


class OverlapSchema(ResultModel):
    """``result_paired_overlap``: scenarios with attractiveness bias, demographic bias and both
    (§4.3.1, Fig. 4)."""

    model_id: str
    dimension: str
    n_attractiveness: pl.Int64 = count()
    n_demographic: pl.Int64 = count()
    n_both: pl.Int64 = count()
    n: pl.Int64 = count()
    estimate: float = share()
    alpha: float = share()


class RaceJobsSchema(_Scenario, _Test):
    """``result_paired_race_jobs``: the two stereotyped races of each race job (App. F Table 7)."""

    dimension: str
    group_1: str
    group_2: str
    mean_1: float = share()
    mean_2: float = share()
    estimate: float = nullable()
    test: str = one_of(KRUSKAL)


#: The paired design's result tables by name (the table is ``result_paired_<name>``).
PAIRED_RESULTS: dict[str, type[ResultModel]] = {
    "attractiveness": AttractivenessSchema,
    "halo": HaloSchema,
    "significance_share": SignificanceShareSchema,
    "demographic": DemographicSchema,
    "demographic_means": DemographicMeansSchema,
    "attractiveness_by_group": AttractivenessByGroupSchema,
    "strongest_group": StrongestGroupSchema,
    "attractiveness_vs_demographic": AttractivenessVsDemographicSchema,
    "overlap": OverlapSchema,
    "race_jobs": RaceJobsSchema,
}

#: The stored result tables (``result_paired_<name>``): the design's ``result_schemas``.
RESULT_TABLES: dict[str, type[ResultModel]] = {
    f"paired_{name}": model for name, model in PAIRED_RESULTS.items()
}

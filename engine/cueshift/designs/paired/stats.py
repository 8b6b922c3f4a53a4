r"""Statistics of the paired original-vs-filtered design (seed 001).

Input: one row per model × image × scenario with the order-invariant score :math:`s` (the
share of valid answers naming the scenario's canonical first option over orderings and
seeds, i.e. the ``phi`` view), the image's ``condition`` (``original`` / ``filtered``),
the individual (``identity_id``) and its demographics. Columns: ``model_id, scenario_id,
scenario_category, family, choice_1, choice_2, identity_id, condition, gender, age,
ethnicity, s``.

Tests follow the paper (Kruskal–Wallis with tie correction, unpaired, "no correction")
and add what the paired design deserves (Wilcoxon signed-rank on the per-individual
difference, effect sizes, optional BH). Demographic analyses use only the rows that carry
the attribute (seed 001 §3.4: race on the CFD subset, age on the FACES subset).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import polars as pl

from cueshift.stats import (
    Correction,
    KruskalResult,
    bh_by_family,
    kruskal_wallis,
    mean_interval,
    welch_interval,
    wilcoxon_signed_rank,
    wilson_interval,
)

ORIGINAL = "original"
FILTERED = "filtered"
SCENARIO_KEYS = ["model_id", "family", "scenario_category", "scenario_id", "choice_1", "choice_2"]


def _values(part: pl.DataFrame, condition: str) -> np.ndarray:
    return part.filter(pl.col("condition") == condition)["s"].drop_nulls().to_numpy()


def _within_shares(low: float, high: float) -> tuple[float, float]:
    """A t interval of a difference of shares clamped to the difference's range [-1, 1] (NaN stays)."""
    return (max(low, -1.0) if not math.isnan(low) else low, min(high, 1.0) if not math.isnan(high) else high)


def _attractiveness_rows(part: pl.DataFrame, confidence: float) -> list[dict[str, object]]:
    original, filtered = _values(part, ORIGINAL), _values(part, FILTERED)
    kw = kruskal_wallis([original, filtered])
    est, lo, hi = welch_interval(filtered, original, confidence)
    lo, hi = _within_shares(lo, hi)
    wide = part.filter(pl.col("s").is_not_null()).pivot(
        on="condition", index="identity_id", values="s", aggregate_function="mean"
    )
    diffs = (
        (wide[FILTERED] - wide[ORIGINAL]).drop_nulls().to_numpy()
        if {ORIGINAL, FILTERED} <= set(wide.columns)
        else np.array([])
    )
    wsr = wilcoxon_signed_rank(diffs)
    p_est, p_lo, p_hi = mean_interval(diffs, confidence)
    p_lo, p_hi = _within_shares(p_lo, p_hi)
    common = {
        "mean_original": float(original.mean()) if original.size else math.nan,
        "mean_filtered": float(filtered.mean()) if filtered.size else math.nan,
    }
    return [
        {
            **common,
            "test": "kruskal-wallis",
            "estimate": est,
            "ci_low": lo,
            "ci_high": hi,
            "statistic": kw.statistic,
            "df": kw.df,
            "p_value": kw.p_value,
            "effect_size": kw.epsilon_squared,
            "n": kw.n,
        },
        {
            **common,
            "test": "wilcoxon",
            "estimate": p_est,
            "ci_low": p_lo,
            "ci_high": p_hi,
            "statistic": wsr.statistic,
            "df": None,
            "p_value": wsr.p_value,
            "effect_size": wsr.rank_biserial,
            "n": int(diffs.size),
        },
    ]


def _strings(*columns: str) -> dict[str, type[pl.DataType]]:
    return dict.fromkeys(columns, pl.String)


#: Columns of a test: statistic, its df, p-value and effect size.
_TEST_COLUMNS: dict[str, type[pl.DataType]] = dict.fromkeys(
    ("statistic", "df", "p_value", "effect_size"), pl.Float64
)


def _finish(rows: list[dict[str, object]], keys: list[str]) -> pl.DataFrame:
    """The attractiveness rows of :func:`_attractiveness_rows` under their grouping ``keys``."""
    schema: dict[str, type[pl.DataType]] = {
        **_strings(*keys),
        "mean_original": pl.Float64,
        "mean_filtered": pl.Float64,
        "test": pl.String,
        **dict.fromkeys(("estimate", "ci_low", "ci_high"), pl.Float64),
        **_TEST_COLUMNS,
        "n": pl.Int64,
    }
    return pl.DataFrame(rows, schema=schema, orient="row")


def attractiveness_bias(
    scores: pl.DataFrame, *, correction: Correction = "none", confidence: float = 0.95
) -> pl.DataFrame:
    r"""Attractiveness bias per model × scenario (seed 001 §4.1): :math:`s` of filtered vs original.

    Two rows per cell: ``kruskal-wallis`` (the paper's unpaired test; estimate
    :math:`\bar s_{F^b} - \bar s_F` with a Welch interval, effect size ε²) and ``wilcoxon``
    (signed-rank on the per-individual difference :math:`s(f^b) - s(f)`; estimate the mean
    difference with a paired t interval, effect size the rank-biserial r). Both intervals are
    clamped to the difference's range [-1, 1] (a t interval ignores it with few images). ``p_adj``:
    BH over the scenarios of a model × test when ``correction='bh'``, else the raw p (the paper).
    """
    rows = []
    for key, part in scores.group_by(SCENARIO_KEYS, maintain_order=True):
        base = dict(zip(SCENARIO_KEYS, key, strict=True))
        rows += [{**base, **r} for r in _attractiveness_rows(part, confidence)]
    frame = _finish(rows, SCENARIO_KEYS)
    return bh_by_family(frame, ["model_id", "test"], correction).with_columns(
        pl.lit(correction).alias("correction")
    )


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
            "p_value",
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


def _group_kw(part: pl.DataFrame, dimension: str) -> tuple[KruskalResult, pl.DataFrame]:
    carried = part.filter(pl.col(dimension).is_not_null() & pl.col("s").is_not_null())
    means = (
        carried.group_by(dimension, maintain_order=True)
        .agg(pl.col("s").mean().alias("estimate"), pl.len().cast(pl.Int64).alias("n"))
        .sort(dimension)
    )
    groups = [g["s"].to_numpy() for _, g in carried.group_by(dimension, maintain_order=True)]
    return kruskal_wallis(groups), means


IMAGE_SETS = {"all": None, "original": ORIGINAL, "filtered": FILTERED}


def demographic_bias(
    scores: pl.DataFrame,
    dimensions: Sequence[str],
    *,
    correction: Correction = "none",
) -> tuple[pl.DataFrame, pl.DataFrame]:
    r"""Demographic bias per model × scenario × dimension (seed 001 §4.3.1, App. E/F).

    Kruskal–Wallis across the groups of ``dimension`` on :math:`s`, restricted to the rows
    carrying the attribute, for all images (:math:`F \cup F^b`, the paper's test) and within
    the originals and the filtered images separately (Table 1). ``estimate`` is the range of
    group means (max − min), with the groups named. BH family: model × dimension × image set.

    Returns
    -------
    tests, group_means
    """
    rows, mean_parts = [], []
    for key, part in scores.group_by(SCENARIO_KEYS, maintain_order=True):
        base = dict(zip(SCENARIO_KEYS, key, strict=True))
        for dimension in dimensions:
            for image_set, condition in IMAGE_SETS.items():
                subset = part if condition is None else part.filter(pl.col("condition") == condition)
                kw, means = _group_kw(subset, dimension)
                if means.height:
                    high, low = means.row(means["estimate"].arg_max()), means.row(means["estimate"].arg_min())
                    mean_parts.append(
                        means.rename({dimension: "group"}).with_columns(
                            *[pl.lit(v).alias(k) for k, v in base.items()],
                            pl.lit(dimension).alias("dimension"),
                            pl.lit(image_set).alias("image_set"),
                        )
                    )
                rows.append(
                    {
                        **base,
                        "dimension": dimension,
                        "image_set": image_set,
                        "test": "kruskal-wallis",
                        "estimate": (high[1] - low[1]) if means.height else None,
                        "group_high": high[0] if means.height else None,
                        "group_low": low[0] if means.height else None,
                        "statistic": kw.statistic,
                        "df": kw.df,
                        "p_value": kw.p_value,
                        "effect_size": kw.epsilon_squared,
                        "n_groups": means.height,
                        "n": kw.n,
                    }
                )
    schema: dict[str, type[pl.DataType]] = {
        **_strings(*SCENARIO_KEYS, "dimension", "image_set", "test"),
        "estimate": pl.Float64,
        **_strings("group_high", "group_low"),
        **_TEST_COLUMNS,
        "n_groups": pl.Int64,
        "n": pl.Int64,
    }
    tests = pl.DataFrame(rows, schema=schema, orient="row")
    tests = bh_by_family(tests, ["model_id", "dimension", "image_set"], correction)
    group_means = pl.concat(mean_parts, how="vertical_relaxed") if mean_parts else pl.DataFrame()
    if group_means.height:
        group_means = group_means.select(*SCENARIO_KEYS, "dimension", "image_set", "group", "estimate", "n")
    return tests, group_means


def attractiveness_by_group(
    scores: pl.DataFrame,
    dimensions: Sequence[str],
    *,
    correction: Correction = "none",
    confidence: float = 0.95,
) -> pl.DataFrame:
    """Attractiveness bias within each demographic group (seed 001 §4.3.2, Fig. 5, App. C):
    the rows of :func:`attractiveness_bias` per model × scenario × dimension × group.
    BH family: model × test × dimension × group."""
    rows = []
    for key, part in scores.group_by(SCENARIO_KEYS, maintain_order=True):
        base = dict(zip(SCENARIO_KEYS, key, strict=True))
        for dimension in dimensions:
            carried = part.filter(pl.col(dimension).is_not_null())
            for (group,), sub in carried.group_by(dimension, maintain_order=True):
                rows += [
                    {**base, "dimension": dimension, "group": group, **r}
                    for r in _attractiveness_rows(sub, confidence)
                ]
    frame = _finish(rows, [*SCENARIO_KEYS, "dimension", "group"])
    return bh_by_family(frame, ["model_id", "test", "dimension", "group"], correction)


def strongest_group(
    by_group: pl.DataFrame, *, alpha: float = 0.05, test: str = "kruskal-wallis"
) -> pl.DataFrame:
    """Per model × dimension × group: the number of scenarios in which the group shows the
    strongest significant attractiveness bias (largest H among groups with ``p_adj < alpha``);
    group ``(none)`` counts scenarios where no group is significant (seed 001 App. C)."""
    rows = by_group.filter(pl.col("test") == test)
    best = (
        rows.with_columns(pl.when(pl.col("p_adj") < alpha).then(pl.col("statistic")).alias("__h"))
        .sort("__h", descending=True, nulls_last=True)
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
        .sort(["model_id", "dimension", "n_scenarios"], descending=[False, False, True])
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


def pair_group_bias(
    scores: pl.DataFrame,
    dimension: str,
    pairs: dict[str, tuple[str, str]],
    *,
    correction: Correction = "none",
) -> pl.DataFrame:
    r"""Two named groups compared per scenario (seed 001 App. F Table 7: the race stereotypically
    associated with each job): Kruskal–Wallis of :math:`s` between ``group_1`` and ``group_2``
    over all images; ``estimate`` = :math:`\bar s_1 - \bar s_2`. BH family: model."""
    rows = []
    for key, part in scores.filter(pl.col("scenario_id").is_in(list(pairs))).group_by(
        SCENARIO_KEYS, maintain_order=True
    ):
        base = dict(zip(SCENARIO_KEYS, key, strict=True))
        g1, g2 = pairs[str(base["scenario_id"])]
        x = part.filter(pl.col(dimension) == g1)["s"].drop_nulls().to_numpy()
        y = part.filter(pl.col(dimension) == g2)["s"].drop_nulls().to_numpy()
        kw = kruskal_wallis([x, y])
        rows.append(
            {
                **base,
                "dimension": dimension,
                "group_1": g1,
                "group_2": g2,
                "mean_1": float(x.mean()) if x.size else None,
                "mean_2": float(y.mean()) if y.size else None,
                "estimate": float(x.mean() - y.mean()) if x.size and y.size else None,
                "test": "kruskal-wallis",
                "statistic": kw.statistic,
                "df": kw.df,
                "p_value": kw.p_value,
                "effect_size": kw.epsilon_squared,
                "n": kw.n,
            }
        )
    schema: dict[str, type[pl.DataType]] = {
        **_strings(*SCENARIO_KEYS, "dimension", "group_1", "group_2"),
        "mean_1": pl.Float64,
        "mean_2": pl.Float64,
        "estimate": pl.Float64,
        "test": pl.String,
        **_TEST_COLUMNS,
        "n": pl.Int64,
    }
    return bh_by_family(pl.DataFrame(rows, schema=schema, orient="row"), ["model_id"], correction)

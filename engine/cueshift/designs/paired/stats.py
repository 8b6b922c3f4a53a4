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
from dataclasses import dataclass

import numpy as np
import polars as pl
from numpy.typing import ArrayLike
from scipy import stats as sps

from cueshift.designs._results import Correction, adjust_by_family, stars

ORIGINAL = "original"
FILTERED = "filtered"
SCENARIO_KEYS = ["model_id", "family", "scenario_category", "scenario_id", "choice_1", "choice_2"]


@dataclass(frozen=True)
class KruskalResult:
    """H with tie correction, its df, chi-square p-value, N and the effect size ε²."""

    statistic: float
    df: float
    p_value: float
    n: int
    epsilon_squared: float


def kruskal_wallis(groups: Sequence[ArrayLike]) -> KruskalResult:
    r"""Kruskal–Wallis H test with the tie correction (as ``scipy.stats.kruskal``).

    .. math::

        H = \frac{\frac{12}{N(N+1)} \sum_{i=1}^{k} \frac{R_i^2}{n_i} - 3(N+1)}
                 {1 - \frac{\sum_t (t^3 - t)}{N^3 - N}}, \qquad H \sim \chi^2_{k-1},

    with :math:`R_i` the rank sum of group :math:`i` in the pooled mid-ranks and :math:`t`
    the sizes of the tie groups. Effect size :math:`\varepsilon^2 = H / (N - 1)` (Tomczak &
    Tomczak 2014). Empty groups are dropped; fewer than two groups or all values tied give NaN.

    References
    ----------
    Kruskal, W. H. & Wallis, W. A. (1952). *JASA* 47, 583–621. Seed 001 §3.4.
    """
    arrays = [np.asarray(g, dtype=np.float64) for g in groups]
    arrays = [a[~np.isnan(a)] for a in arrays]
    arrays = [a for a in arrays if a.size]
    n = int(sum(a.size for a in arrays))
    k = len(arrays)
    if k < 2:
        return KruskalResult(math.nan, float(max(k - 1, 0)), math.nan, n, math.nan)
    pooled = np.concatenate(arrays)
    ranks = sps.rankdata(pooled)
    _, tie_counts = np.unique(pooled, return_counts=True)
    tie = 1.0 - float(np.sum(tie_counts**3 - tie_counts)) / (n**3 - n)
    if tie <= 0:
        return KruskalResult(math.nan, float(k - 1), math.nan, n, math.nan)
    bounds = np.cumsum([0] + [a.size for a in arrays])
    rank_term = sum(
        ranks[lo:hi].sum() ** 2 / (hi - lo) for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)
    )
    h = (12.0 / (n * (n + 1)) * rank_term - 3.0 * (n + 1)) / tie
    return KruskalResult(h, float(k - 1), float(sps.chi2.sf(h, k - 1)), n, h / (n - 1))


@dataclass(frozen=True)
class SignedRankResult:
    """Wilcoxon signed-rank: T+ (sum of positive ranks), z, two-sided p, non-zero n, rank-biserial r."""

    statistic: float
    z: float
    p_value: float
    n: int
    rank_biserial: float


def wilcoxon_signed_rank(differences: ArrayLike) -> SignedRankResult:
    r"""Wilcoxon signed-rank test of paired differences (normal approximation, tie-corrected).

    Zeros are dropped (Wilcoxon's convention); with :math:`n` non-zero differences and
    mid-ranks of :math:`|d|`,

    .. math::

        T^+ = \sum_{d_i > 0} R_i, \quad
        z = \frac{T^+ - n(n+1)/4}{\sqrt{n(n+1)(2n+1)/24 - \sum_t (t^3 - t)/48}}, \quad
        p = 2\,\bar\Phi(|z|),

    without continuity correction (``scipy.stats.wilcoxon(method="approx")``). The matched-
    pairs rank-biserial correlation is :math:`r = (T^+ - T^-) / (T^+ + T^-)` (Kerby 2014).
    """
    d = np.asarray(differences, dtype=np.float64)
    d = d[~np.isnan(d)]
    d = d[d != 0]
    n = int(d.size)
    if n == 0:
        return SignedRankResult(math.nan, math.nan, math.nan, 0, math.nan)
    ranks = sps.rankdata(np.abs(d))
    t_plus = float(ranks[d > 0].sum())
    t_minus = float(ranks[d < 0].sum())
    _, tie_counts = np.unique(np.abs(d), return_counts=True)
    var = n * (n + 1) * (2 * n + 1) / 24.0 - float(np.sum(tie_counts**3 - tie_counts)) / 48.0
    z = (t_plus - n * (n + 1) / 4.0) / math.sqrt(var) if var > 0 else math.nan
    p = float(2.0 * sps.norm.sf(abs(z))) if not math.isnan(z) else math.nan
    return SignedRankResult(t_plus, z, p, n, (t_plus - t_minus) / (t_plus + t_minus))


def mean_difference_interval(
    x: ArrayLike, y: ArrayLike, confidence: float = 0.95
) -> tuple[float, float, float]:
    r"""Welch interval for :math:`\bar x - \bar y` (independent samples).

    .. math::

        \bar x - \bar y \pm t_{1-\alpha/2,\nu} \sqrt{s_x^2/n_x + s_y^2/n_y}, \qquad
        \nu = \frac{(s_x^2/n_x + s_y^2/n_y)^2}{\frac{(s_x^2/n_x)^2}{n_x - 1} + \frac{(s_y^2/n_y)^2}{n_y - 1}}
    """
    a = np.asarray(x, dtype=np.float64)
    b = np.asarray(y, dtype=np.float64)
    a, b = a[~np.isnan(a)], b[~np.isnan(b)]
    if a.size < 2 or b.size < 2:
        est = float(a.mean() - b.mean()) if a.size and b.size else math.nan
        return est, math.nan, math.nan
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    est = float(a.mean() - b.mean())
    se = math.sqrt(va + vb)
    if se == 0:
        return est, est, est
    nu = (va + vb) ** 2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1))
    half = float(sps.t.ppf(0.5 + confidence / 2, nu)) * se
    return est, est - half, est + half


def paired_mean_interval(differences: ArrayLike, confidence: float = 0.95) -> tuple[float, float, float]:
    r"""Paired t interval :math:`\bar d \pm t_{1-\alpha/2, n-1} s_d / \sqrt n`."""
    d = np.asarray(differences, dtype=np.float64)
    d = d[~np.isnan(d)]
    if d.size < 2:
        return (float(d.mean()) if d.size else math.nan), math.nan, math.nan
    est = float(d.mean())
    half = float(sps.t.ppf(0.5 + confidence / 2, d.size - 1)) * float(d.std(ddof=1)) / math.sqrt(d.size)
    return est, est - half, est + half


def _values(part: pl.DataFrame, condition: str) -> np.ndarray:
    return part.filter(pl.col("condition") == condition)["s"].drop_nulls().to_numpy()


def _attractiveness_rows(part: pl.DataFrame, confidence: float) -> list[dict[str, object]]:
    original, filtered = _values(part, ORIGINAL), _values(part, FILTERED)
    kw = kruskal_wallis([original, filtered])
    est, lo, hi = mean_difference_interval(filtered, original, confidence)
    wide = part.filter(pl.col("s").is_not_null()).pivot(
        on="condition", index="identity_id", values="s", aggregate_function="mean"
    )
    diffs = (
        (wide[FILTERED] - wide[ORIGINAL]).drop_nulls().to_numpy()
        if {ORIGINAL, FILTERED} <= set(wide.columns)
        else np.array([])
    )
    wsr = wilcoxon_signed_rank(diffs)
    p_est, p_lo, p_hi = paired_mean_interval(diffs, confidence)
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


def _finish(rows: list[dict[str, object]], keys: list[str]) -> pl.DataFrame:
    schema = {
        **dict.fromkeys(keys, pl.String),
        "mean_original": pl.Float64,
        "mean_filtered": pl.Float64,
        "test": pl.String,
        "estimate": pl.Float64,
        "ci_low": pl.Float64,
        "ci_high": pl.Float64,
        "statistic": pl.Float64,
        "df": pl.Float64,
        "p_value": pl.Float64,
        "effect_size": pl.Float64,
        "n": pl.Int64,
    }
    return pl.DataFrame(rows, schema=schema, orient="row") if rows else pl.DataFrame(schema=schema)


def attractiveness_bias(
    scores: pl.DataFrame, *, correction: Correction = "none", confidence: float = 0.95
) -> pl.DataFrame:
    r"""Attractiveness bias per model × scenario (seed 001 §4.1): :math:`s` of filtered vs original.

    Two rows per cell: ``kruskal-wallis`` (the paper's unpaired test; estimate
    :math:`\bar s_{F^b} - \bar s_F` with a Welch interval, effect size ε²) and ``wilcoxon``
    (signed-rank on the per-individual difference :math:`s(f^b) - s(f)`; estimate the mean
    difference with a paired t interval, effect size the rank-biserial r). ``p_adj``: BH over
    the scenarios of a model × test when ``correction='bh'``, else the raw p (the paper).
    """
    rows = []
    for key, part in scores.group_by(SCENARIO_KEYS, maintain_order=True):
        base = dict(zip(SCENARIO_KEYS, key, strict=True))
        rows += [{**base, **r} for r in _attractiveness_rows(part, confidence)]
    frame = _finish(rows, SCENARIO_KEYS)
    return adjust_by_family(frame, ["model_id", "test"], correction).with_columns(
        pl.lit(correction).alias("correction")
    )


def halo_table(bias: pl.DataFrame, halo_scenarios: Sequence[str], *, alpha: float = 0.05) -> pl.DataFrame:
    """The halo table (seed 001 App. D Table 5): positive-first trait scenarios, mean :math:`s` for
    filtered and original images, their gap, the Kruskal–Wallis H and its stars, by decreasing H."""
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
            pl.col("p_adj").map_elements(stars, return_dtype=pl.String).alias("stars"),
            ((pl.col("p_adj") < alpha) & (pl.col("gap") > 0)).alias("halo"),
        )
        .sort(["model_id", "statistic"], descending=[False, True], nulls_last=True)
    )


def significance_share(tests: pl.DataFrame, by: Sequence[str], *, alpha: float = 0.05) -> pl.DataFrame:
    """Share of scenarios with ``p_adj < alpha`` per ``by`` group (e.g. model × test × family),
    with a Wilson interval; ``n_positive`` counts the significant ones with a positive estimate."""
    from cueshift.designs.pairwise.stats import wilson_interval

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
    tests = pl.DataFrame(rows, infer_schema_length=None).with_columns(
        pl.col("n", "n_groups").cast(pl.Int64), pl.col("estimate", "statistic", "p_value").cast(pl.Float64)
    )
    tests = adjust_by_family(tests, ["model_id", "dimension", "image_set"], correction)
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
    return adjust_by_family(frame, ["model_id", "test", "dimension", "group"], correction)


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
    if not rows:
        return pl.DataFrame()
    frame = pl.DataFrame(rows, infer_schema_length=None).with_columns(
        pl.col("statistic", "p_value", "effect_size", "estimate", "mean_1", "mean_2").cast(pl.Float64)
    )
    return adjust_by_family(frame, ["model_id"], correction)

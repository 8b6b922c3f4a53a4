r"""Demographic bias of the paired original-vs-filtered design (seed 001 §4.3.1, App. E/F).

Input: the scores of :mod:`cueshift.designs.paired.attractiveness`. Demographic analyses use
only the rows that carry the attribute (seed 001 §3.4: race on the CFD subset, age on the
FACES subset).
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from cueshift.designs.paired.attractiveness import (
    FILTERED,
    ORIGINAL,
    SCENARIO_KEYS,
    TEST_COLUMNS,
    string_columns,
)
from cueshift.stats import Correction, KruskalResult, bh_by_family, kruskal_wallis


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
                        "p": kw.p_value,
                        "effect_size": kw.epsilon_squared,
                        "n_groups": means.height,
                        "n": kw.n,
                    }
                )
    schema: dict[str, type[pl.DataType]] = {
        **string_columns(*SCENARIO_KEYS, "dimension", "image_set", "test"),
        "estimate": pl.Float64,
        **string_columns("group_high", "group_low"),
        **TEST_COLUMNS,
        "n_groups": pl.Int64,
        "n": pl.Int64,
    }
    tests = pl.DataFrame(rows, schema=schema, orient="row")
    tests = bh_by_family(tests, ["model_id", "dimension", "image_set"], correction)
    group_means = pl.concat(mean_parts, how="vertical_relaxed") if mean_parts else pl.DataFrame()
    if group_means.height:
        group_means = group_means.select(*SCENARIO_KEYS, "dimension", "image_set", "group", "estimate", "n")
    return tests, group_means


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
                "p": kw.p_value,
                "effect_size": kw.epsilon_squared,
                "n": kw.n,
            }
        )
    schema: dict[str, type[pl.DataType]] = {
        **string_columns(*SCENARIO_KEYS, "dimension", "group_1", "group_2"),
        "mean_1": pl.Float64,
        "mean_2": pl.Float64,
        "estimate": pl.Float64,
        "test": pl.String,
        **TEST_COLUMNS,
        "n": pl.Int64,
    }
    return bh_by_family(pl.DataFrame(rows, schema=schema, orient="row"), ["model_id"], correction)

r"""Attractiveness bias of the paired original-vs-filtered design (seed 001 §4.1, §4.3.2).

Input: one row per model × image × scenario with the order-invariant score :math:`s` (the
share of valid answers naming the scenario's canonical first option over orderings and
seeds, i.e. the ``phi`` view), the image's ``condition`` (``original`` / ``filtered``),
the individual (``face_id``) and its demographics. Columns: ``model_id, scenario_id,
scenario_category, family, choice_1, choice_2, face_id, condition, gender, age,
ethnicity, s``.

Tests follow the paper (Kruskal–Wallis with tie correction, unpaired, "no correction")
and add what the paired design deserves (Wilcoxon signed-rank on the per-individual
difference, effect sizes, optional BH). The demographic tables are in
:mod:`cueshift.designs.paired.demographic`, the tables drawn from these results in
:mod:`cueshift.designs.paired.summaries`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import polars as pl

from cueshift.stats import (
    Correction,
    bh_by_family,
    kruskal_wallis,
    mean_interval,
    welch_interval,
    wilcoxon_signed_rank,
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
        on="condition", index="face_id", values="s", aggregate_function="mean"
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
            "p": kw.p_value,
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
            "p": wsr.p_value,
            "effect_size": wsr.rank_biserial,
            "n": int(diffs.size),
        },
    ]


def string_columns(*columns: str) -> dict[str, type[pl.DataType]]:
    """Schema entries typing each of ``columns`` as a string."""
    return dict.fromkeys(columns, pl.String)


#: Columns of a test: statistic, its df, p-value and effect size.
TEST_COLUMNS: dict[str, type[pl.DataType]] = dict.fromkeys(
    ("statistic", "df", "p", "effect_size"), pl.Float64
)


def _finish(rows: list[dict[str, object]], keys: list[str]) -> pl.DataFrame:
    """The attractiveness rows of :func:`_attractiveness_rows` under their grouping ``keys``."""
    schema: dict[str, type[pl.DataType]] = {
        **string_columns(*keys),
        "mean_original": pl.Float64,
        "mean_filtered": pl.Float64,
        "test": pl.String,
        **dict.fromkeys(("estimate", "ci_low", "ci_high"), pl.Float64),
        **TEST_COLUMNS,
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

"""The negativity asymmetry of seed 000 (§5.2): do unfavorable cues shift more than their
favorable counterparts? Per face the absolute SBS of each cue of a pair, as exact rationals, and a
one-sided test of their differences."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np
import polars as pl

from cueshift.designs.stylisticbias.constants import ASYMMETRY_PAIRS
from cueshift.designs.stylisticbias.stats._group_cells import valid_delta
from cueshift.stats import (
    Resampling,
    bh_by_family,
    count_denominator,
    returns,
    scaled_integers,
    sign_flip_test,
    signed_rank_columns,
)


@returns("negativity_asymmetry")
def negativity_asymmetry(
    delta: pl.DataFrame,
    *,
    pairs: Sequence[tuple[str, str]] = ASYMMETRY_PAIRS,
    resampling: Resampling = Resampling(),
) -> pl.DataFrame:
    r"""Do unfavorable cues shift more than their favorable counterparts? (seed 000 §5.2)

    For each pair (negative value :math:`v^-`, positive value :math:`v^+`) and each face with
    both: :math:`a^\pm_f = |\bar\Delta_{f,v^\pm}|`, the absolute face SBS over all scenarios and
    models. Reported: the medians of :math:`a^-` and :math:`a^+` (paper: 0.167 vs 0.121 for
    Worn/Distressed vs Formal/Business), their ratio (``estimate``; paper 1.38×), and a
    **one-sided** WSRT of :math:`a^-_f - a^+_f > 0` (or a one-sided sign-flip test), BH over
    the pairs (paper: n = 5 pairs; see :data:`ASYMMETRY_PAIRS` for the three it leaves unnamed).

    :math:`a^\pm_f` and :math:`a^-_f - a^+_f` are exact rationals rounded once
    (:func:`abs_shift_differences`): an exact zero stays 0 and equal differences stay ties.
    ``resampling``: its ``test``, and the resamples and seed of the sign-flip test (its interval
    settings are not used).
    """
    per_face = face_shift_sums(valid_delta(delta))
    rows = []
    diffs = []
    for negative, positive in pairs:
        both = per_face.filter(pl.col("variation_value") == negative).join(
            per_face.filter(pl.col("variation_value") == positive), on="face_id", suffix="_pos"
        )
        a_neg, a_pos, difference = abs_shift_differences(both)
        med_neg = float(np.median(a_neg)) if a_neg.size else np.nan
        med_pos = float(np.median(a_pos)) if a_pos.size else np.nan
        rows.append(
            {
                "negative_value": negative,
                "positive_value": positive,
                "median_abs_negative": med_neg,
                "median_abs_positive": med_pos,
                "estimate": med_neg / med_pos if med_pos else np.nan,
                "n": int(a_neg.size),
            }
        )
        diffs.append(difference)
    width = max((d.size for d in diffs), default=0)
    matrix = np.full((width, len(diffs)), np.nan)
    for j, d in enumerate(diffs):
        matrix[: d.size, j] = d
    if resampling.test == "permutation":
        statistic, p = sign_flip_test(
            matrix, n_resamples=resampling.resamples, seed=resampling.seed, alternative="greater"
        )
        effect, name = np.full(len(diffs), np.nan), "sign-flip"
    else:
        res = signed_rank_columns(matrix, alternative="greater")
        statistic, p, effect, name = res.statistic, res.p_value, res.effect_size, "wilcoxon"
    out = pl.DataFrame(rows).with_columns(
        statistic=pl.Series(statistic),
        p=pl.Series(p),
        effect_size=pl.Series(effect),
        test=pl.lit(name),
        alternative=pl.lit("greater"),
    )
    out = bh_by_family(out, [])
    return out.select(
        "negative_value",
        "positive_value",
        "median_abs_negative",
        "median_abs_positive",
        "estimate",
        "statistic",
        "p",
        "p_adj",
        "effect_size",
        "test",
        "alternative",
        pl.col("n").cast(pl.Int64),
    ).with_columns(pl.col(pl.Float64).fill_nan(None))


def face_shift_sums(data: pl.DataFrame) -> pl.DataFrame:
    """Per face × variation value: ``s``, the sum of Δ as integers over the common ``scale``
    (:func:`cueshift.stats.scaled_integers`, exact in any row order), and ``n`` rows."""
    numerators, scale = scaled_integers(data["delta"].to_numpy(), count_denominator(data))
    return (
        data.select("face_id", "variation_value")
        .with_columns(s=pl.Series(numerators.astype(np.int64)))
        .group_by("face_id", "variation_value")
        .agg(pl.col("s").sum(), pl.len().cast(pl.Int64).alias("n"))
        .with_columns(scale=pl.lit(int(scale), dtype=pl.Int64))
        .sort("face_id", "variation_value")
    )


def abs_shift_differences(both: pl.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r""":math:`a^-_f = |s^-_f| / (n^-_f L)`, :math:`a^+_f` and :math:`a^-_f - a^+_f` of the faces
    in ``both`` (columns ``s, n, s_pos, n_pos, scale``), each an exact rational rounded once, so
    equal rationals are equal doubles whatever sums reached them."""
    a_neg, a_pos, difference = [], [], []
    for s_neg, n_neg, s_pos, n_pos, scale in both.select("s", "n", "s_pos", "n_pos", "scale").iter_rows():
        neg, pos = Fraction(abs(s_neg), n_neg * scale), Fraction(abs(s_pos), n_pos * scale)
        a_neg.append(float(neg))
        a_pos.append(float(pos))
        difference.append(float(neg - pos))
    return np.array(a_neg, dtype=np.float64), np.array(a_pos, dtype=np.float64), np.array(difference)

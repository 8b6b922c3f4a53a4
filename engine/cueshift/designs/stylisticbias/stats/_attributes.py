"""Attribute × demographic tables of seed 000: Table 3, Table 4, Table 11, and the negativity
asymmetry of §5.2. Every cell pools all models and scenarios per face first ("each base face
contributes one mean Δ averaged across all scenarios and models", Table 11 caption)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import polars as pl

from cueshift.designs.stylisticbias.constants import ASYMMETRY_PAIRS, DIMENSIONS, TABLE3_CATEGORY_MAP
from cueshift.designs.stylisticbias.stats._group_reversals import reversal_flags
from cueshift.designs.stylisticbias.stats._groups_crossed import crossed_group_intervals
from cueshift.designs.stylisticbias.stats._pooling import POOLED_COLUMNS, pooled_cells
from cueshift.designs.stylisticbias.stats._summed import SummedDelta
from cueshift.stats import (
    ALPHA,
    FaceSums,
    Resampling,
    ZeroMethod,
    bh_by_family,
    cluster_bootstrap,
    coarsen,
    count_denominator,
    face_labels,
    face_sums,
    one_sample_test,
    returns,
    scaled_integers,
    sign_flip_test,
    signed_rank_columns,
    study_faces,
)

MEAN_OF_GROUPS = "(mean of groups)"

#: Columns of a face-level group cell after its attribute keys (Tables 3, 4 and 11), before ``n_obs``.
GROUP_CELL_COLUMNS = (
    "dimension",
    "group",
    "estimate",
    "ci_low",
    "ci_high",
    "statistic",
    "p",
    "p_adj",
    "effect_size",
    "test",
    "n",
)


def valid_delta(delta: pl.DataFrame) -> pl.DataFrame:
    return delta.filter(pl.col("delta").is_not_null() & pl.col("delta").is_not_nan())


def group_cells(
    data: pl.DataFrame, keys: Sequence[str], dimensions: Sequence[str], faces: list[str]
) -> tuple[pl.DataFrame, np.ndarray]:
    """Per-face mean Δ cells of ``keys`` × (dimension, group), stacked over dimensions and groups
    (one pass over the rows; groups are face subsets of the same fine cells)."""
    return summed_group_cells(face_sums(data, keys, faces=faces), keys, face_labels(data, faces, dimensions))


def summed_group_cells(
    fine: FaceSums, keys: Sequence[str], labels: Mapping[str, np.ndarray]
) -> tuple[pl.DataFrame, np.ndarray]:
    """:func:`group_cells` from per-face sums in cells at least as fine as ``keys`` and each face's
    label per dimension (``labels``, in the order of ``fine.faces``)."""
    cells, values = [], []
    for dim, group_of in labels.items():
        for group in sorted({g for g in group_of if g is not None}):
            fm = coarsen(fine, keys, face_mask=group_of == group)
            keep = fm.cells["n_obs"].to_numpy() > 0  # e.g. facial hair has no female cell
            cells.append(
                fm.cells.filter(pl.Series(keep)).with_columns(
                    pl.lit(dim).alias("dimension"), pl.lit(group).alias("group")
                )
            )
            values.append(fm.values[:, keep])
    return pl.concat(cells), np.hstack(values)


@dataclass(frozen=True)
class FaceLevelTest:
    """One face-level test setting for every cell of a table: called on ``(cells, values)``
    (a face × cell matrix of per-face mean Δ), it adds the bootstrap estimate and CI and the
    one-sample test (WSRT or sign flips) of each column to ``cells``."""

    resampling: Resampling
    zero_method: ZeroMethod = "wilcox"

    def __call__(self, cells: pl.DataFrame, values: np.ndarray) -> pl.DataFrame:
        r = self.resampling
        boot, _ = cluster_bootstrap(
            values,
            n_resamples=r.resamples,
            seed=r.seed,
            confidence_level=r.confidence_level,
            method=r.ci_method,
        )
        statistic, p, effect, name = one_sample_test(
            values, test=r.test, n_resamples=r.resamples, seed=r.seed, zero_method=self.zero_method
        )
        return cells.with_columns(
            estimate=pl.Series(boot.estimate),
            ci_low=pl.Series(boot.ci_low),
            ci_high=pl.Series(boot.ci_high),
            statistic=pl.Series(statistic),
            p=pl.Series(p),
            effect_size=pl.Series(effect),
            test=pl.lit(name),
            n=pl.Series(boot.n.astype(np.int64)),
        )


@returns("table11")
def demographic_variation_table(
    delta: pl.DataFrame,
    *,
    dimensions: Sequence[str] = DIMENSIONS,
    alpha: float = ALPHA,
    resampling: Resampling = Resampling(),
    summed: SummedDelta | None = None,
) -> pl.DataFrame:
    r"""Mean Δ per variation value × demographic group with a face-level test (seed 000 Table 11).

    Cell estimate: :math:`\frac{1}{|F_g|}\sum_{f\in F_g}\bar\Delta_{f,v}`, with
    :math:`\bar\Delta_{f,v}` the face's mean Δ of value :math:`v` over all scenarios and
    models, :math:`F_g` the faces of group :math:`g` that have the variation. WSRT on those
    face means (or sign flips), BH over **all cells of the table** (the paper's 437),
    face-level bootstrap CI.

    Sign reversals (the paper's gender-dependent reversals, e.g. facial tattoo: male −0.006 ns,
    female +0.033 p < 0.001) count only with evidence (:func:`reversal_flags`):
    ``sign_reversal`` when the value's group estimates within a dimension take both signs and
    either a positive and a negative group are each significant (``sign_reversal_both``), or a
    two-sided Mann–Whitney U test of the two groups' per-face means is (BH over every
    opposite-signed pair of the table; ``reversal_p_adj``). ``reversal_evidence`` says which, or
    ``not distinguishable`` for a sign change with neither (null: no sign change).

    Beside the raw cells, partially pooled ones (:func:`pooled_cells`):
    ``pooled_estimate`` shrinks each group's estimate towards the value's estimate over the
    dimension's groups by empirical Bayes, with Morris's interval ``pooled_ci_low``/``high`` and
    the fraction shrunk ``shrinkage`` — a cell of few faces moves most.

    ``resampling``: the tests (``test``), bootstrap resamples, seed, level and interval kind.

    ``summed``: the rows of ``delta`` already summed per face (:func:`summed_delta`, relabelled
    as the rows would be); the rows are then not read again. The same table either way.
    """
    keys = ["variation_category", "variation_value"]
    if summed is None:
        data = valid_delta(delta)
        cells, values = group_cells(data, keys, dimensions, study_faces(data))
    else:
        cells, values = summed_group_cells(summed.attributes, keys, summed.labels_of(dimensions))
    out = FaceLevelTest(resampling)(cells, values)
    out = pooled_cells(out, values, keys, confidence_level=resampling.confidence_level)
    out = bh_by_family(out, [])
    out = reversal_flags(out, values, ["variation_category", "variation_value"], alpha=alpha)
    return (
        out.sort("variation_category", "variation_value", "dimension", "group")
        .select(
            "variation_category",
            "variation_value",
            *GROUP_CELL_COLUMNS,
            pl.col("n_obs").cast(pl.Int64),
            "sign_reversal",
            "sign_reversal_both",
            "reversal_evidence",
            "reversal_p_adj",
            *POOLED_COLUMNS,
        )
        .with_columns(pl.col(pl.Float64).fill_nan(None))
    )


@returns("table3")
def category_demographic_table(
    delta: pl.DataFrame,
    *,
    category_map: Mapping[str, str] = TABLE3_CATEGORY_MAP,
    dimensions: Sequence[str] = DIMENSIONS,
    resampling: Resampling = Resampling(),
    generalise: str = "faces",
    summed: SummedDelta | None = None,
) -> pl.DataFrame:
    r"""SBS per attribute category × demographic dimension (seed 000 Table 3).

    Categories are merged by ``category_map`` (default: Table 3's "Makeup & lips" and
    "Hair len./color"). Per group :math:`g`: the face-level mean of per-face mean Δ over the
    category's values, scenarios and models (rows with ``group`` = the group). The
    Table 3 cell (``group = "(mean of groups)"``) is the unweighted mean of the group
    estimates — the paper's columns differ slightly per dimension, which a pooled mean would
    not — and is tested by WSRT on all faces' per-face means. ``p_adj``: BH within each
    dimension × row kind (a column of the table). ``generalise='faces+scenarios'``
    (``cueshift analyze --generalise``): the group rows' intervals resample faces and scenarios
    together (:func:`crossed_group_intervals`); estimates and tests stay. ``summed``: as
    :func:`demographic_variation_table` (its categories not yet merged). ``resampling``: as
    there.
    """

    def merged(frame: pl.DataFrame) -> pl.DataFrame:
        return frame.with_columns(pl.col("variation_category").replace(dict(category_map)))

    if summed is None:
        data = merged(valid_delta(delta))
        faces = study_faces(data)
        fine = face_sums(data, ["variation_category"], faces=faces)
        labels = face_labels(data, faces, dimensions)
    else:
        summed = summed.relabelled(merged)
        faces, fine, labels = summed.faces, summed.attributes, summed.labels_of(dimensions)
    cells, values = summed_group_cells(fine, ["variation_category"], labels)
    face_test = FaceLevelTest(resampling)
    groups = face_test(cells, values)
    if generalise == "faces+scenarios":
        low, high = crossed_group_intervals(
            merged(valid_delta(delta)),
            ["variation_category"],
            dimensions,
            faces,
            resampling,
        )
        groups = groups.with_columns(ci_low=pl.Series(low), ci_high=pl.Series(high))
    overall_fm = coarsen(fine, ["variation_category"])  # all faces: the numbers face_matrix gives
    overall = face_test(overall_fm.cells, overall_fm.values)
    means = groups.group_by("variation_category", "dimension").agg(pl.col("estimate").mean())
    summary = means.join(overall.drop("estimate"), on="variation_category").with_columns(
        group=pl.lit(MEAN_OF_GROUPS),
        ci_low=pl.lit(None, dtype=pl.Float64),
        ci_high=pl.lit(None, dtype=pl.Float64),
    )
    both = pl.concat(
        [
            groups.with_columns(row_kind=pl.lit("group")),
            summary.with_columns(row_kind=pl.lit("mean of groups")).select(
                *groups.columns, pl.lit("mean of groups").alias("row_kind")
            ),
        ],
        how="diagonal_relaxed",
    )
    both = bh_by_family(both, ["dimension", "row_kind"])
    return (
        both.select("variation_category", *GROUP_CELL_COLUMNS, pl.col("n_obs").cast(pl.Int64))
        .sort("variation_category", "dimension", "group")
        .with_columns(pl.col(pl.Float64).fill_nan(None))
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

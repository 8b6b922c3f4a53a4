"""Attribute × demographic tables of seed 000: Table 3 and Table 11 (the negativity asymmetry of
§5.2 is in ``_negativity.py``). Every cell pools all models and scenarios per face first ("each
base face contributes one mean Δ averaged across all scenarios and models", Table 11 caption)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl

from cueshift.designs.stylisticbias.constants import DIMENSIONS, TABLE3_CATEGORY_MAP
from cueshift.designs.stylisticbias.stats._group_cells import (
    GROUP_CELL_COLUMNS,
    FaceLevelTest,
    group_cells,
    summed_group_cells,
    valid_delta,
)
from cueshift.designs.stylisticbias.stats._group_reversals import reversal_flags
from cueshift.designs.stylisticbias.stats._groups_crossed import crossed_group_intervals
from cueshift.designs.stylisticbias.stats._pooling import POOLED_COLUMNS, pooled_cells
from cueshift.designs.stylisticbias.stats._summed import SummedDelta
from cueshift.stats import (
    ALPHA,
    Resampling,
    bh_by_family,
    coarsen,
    face_labels,
    face_sums,
    returns,
    study_faces,
)

MEAN_OF_GROUPS = "(mean of groups)"


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
    ``sign_reversal`` when the value's group estimates within a dimension take both signs and a
    positive and a negative group are each significant (an intersection–union test, D51; the same
    as ``sign_reversal_both``). A two-sided Mann–Whitney U test of the two groups' per-face means
    (BH over every opposite-signed pair of the table; ``reversal_p_adj``) significant without that
    is ``reversal_evidence`` ``difference significant``, not a counted reversal; a sign change with
    neither is ``not distinguishable`` (null: no sign change). In the example above the male
    −0.006 is not significant, so facial tattoo is not a counted reversal.

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

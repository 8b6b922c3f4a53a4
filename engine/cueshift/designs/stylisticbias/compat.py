"""Replication mode (``cueshift analyze --compat release``): the seed release's own choices.

The StylisticBias release's evaluation scripts differ from cueshift's default tables by choices,
not bugs. Replication mode reproduces them — not the release's floating-point artefacts (its sums
are plain float sums; cueshift's are exact) — in ``result_release_<table>`` beside the default
tables, and names each differing cell in ``result_compat_differences`` (:mod:`.compat_differences`):

=====================  =========================================  ==============================
choice                 the release                                 cueshift (default)
=====================  =========================================  ==============================
``phi_denominator``    φ = favorable / all answers (invalid,       φ = favorable / valid answers
                       "unknown", answers count as not favorable)  (seed 000 Eq. 1)
``release_reading``    answers read as the release read them       cueshift's strict parser
                       where it stored its reading (imported
                       judgments; :mod:`.compat_phi`)
``vs_ddof``            VS with the sample std (``ddof = 1``)        population std (``ddof = 0``)
``min_faces``          a cell of fewer than 3 faces is not tested  every cell with a face tested
``untestable_p1``      an untested cell, and a cell without any    left out of the family
                       face, enters BH as p = 1
``table3_family``      Table 3's 40 category × dimension cells      BH within each dimension
                       corrected at once
``cohens_d_rows``      Table 5's Cohen's d over the Δ rows          over the faces' mean Δ
``sbs_rows``           Table 5's SBS: the mean of the Δ rows        the mean of the faces' mean Δ
                       (its interval stays cueshift's face one)
=====================  =========================================  ==============================

The testing rules are those of the release's ``check_significance_independent.py`` and
``evaluate_mllm_outputs.py`` (:mod:`.compat_rules`), its φ that of ``evaluate_mllm_outputs.py``
(:mod:`.compat_phi`). A differing cell's ``choice`` lists the choices that change it when applied
alone to the default table (``'combined'`` when none does alone). ``result_release_table3`` also
lists Table 3's cells without faces as the release's file does (:func:`release_table_rows`); they
hold no number but ``p_adj`` 1 and are not compared.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import polars as pl

from cueshift.designs.stylisticbias.compat_differences import (
    DIFFERENCE_SCHEMA,
    TABLE_CELLS,
    Variants,
    cell_differences,
)
from cueshift.designs.stylisticbias.compat_phi import ReleasePhis, release_inputs, release_phi
from cueshift.designs.stylisticbias.compat_rules import (
    bh_with_empty_cells,
    rows_cohens_d,
    rows_mean_sbs,
    table3_empty_cells,
    table11_empty_cells,
    untested_below_min_faces,
    with_empty_table3_rows,
)
from cueshift.designs.stylisticbias.inputs import Inputs
from cueshift.designs.stylisticbias.stats import (
    MEAN_OF_GROUPS,
    category_demographic_table,
    demographic_variation_table,
    model_summary,
    variation_strength,
)
from cueshift.stats import bh_by_family

#: The release's choices that differ from cueshift's (module docstring), by name.
CHOICES: dict[str, str] = {
    "phi_denominator": "invalid answers counted in phi's denominator",
    "release_reading": "answers read as the release read them (its stored chosen_option)",
    "vs_ddof": "VS with the sample standard deviation (ddof 1)",
    "min_faces": "cells of fewer than 3 faces not tested",
    "untestable_p1": "untestable cells, and cells without faces, entered into BH as p = 1",
    "table3_family": "Table 3 corrected over all category x dimension cells at once",
    "cohens_d_rows": "Table 5's Cohen's d over the delta rows, not the faces",
    "sbs_rows": "Table 5's SBS as the mean of the delta rows, not of the faces' means",
}


def untestable_as_one(
    frame: pl.DataFrame, family: Sequence[str], empty: pl.DataFrame | None = None
) -> pl.DataFrame:
    """``p_adj`` by BH within ``family`` with every untested cell (null p), and each ``empty``
    cell (a cell without faces, not a row of ``frame``), entered as p = 1."""
    return bh_with_empty_cells(frame, family, empty, p=pl.col("p").fill_null(1.0))


def table3_release_bh(
    frame: pl.DataFrame, *, untestable_p1: bool, one_family: bool, empty: pl.DataFrame | None = None
) -> pl.DataFrame:
    """Table 3's ``p_adj``: group rows within each dimension; the mean-of-groups cells (the
    paper's table) within each dimension, or all at once (``one_family``); untested cells left
    out, or entered as p = 1 with the ``empty`` cells (``untestable_p1``)."""
    mean = pl.col("group") == MEAN_OF_GROUPS
    p = pl.col("p").fill_null(1.0) if untestable_p1 else pl.col("p")
    keyed = frame.with_columns(
        mean.alias("__mean"),
        pl.when(mean & one_family).then(pl.lit("all")).otherwise(pl.col("dimension")).alias("__dim"),
    )
    if empty is not None:
        empty = empty.with_columns(
            pl.lit(True).alias("__mean"),
            (pl.lit("all") if one_family else pl.col("dimension")).alias("__dim"),
        )
    out = bh_with_empty_cells(keyed, ["__mean", "__dim"], empty if untestable_p1 else None, p=p)
    return out.select(frame.columns)


def release_tables(default: dict[str, pl.DataFrame], base: Inputs, phis: ReleasePhis) -> dict[str, Variants]:
    """Each table of :data:`~.compat_differences.TABLE_CELLS` the default run wrote, as the release
    computes it, with the default table under each of its choices alone (module docstring)."""
    release, denominator, reading = phis.release, phis.denominator, phis.reading

    def by_phi(table: Callable[[Inputs], pl.DataFrame]) -> tuple[pl.DataFrame, dict[str, pl.DataFrame]]:
        """``table`` with the release's φ, and the default's with each φ choice alone."""
        full = table(release)
        alone = {"phi_denominator": full if denominator is release else table(denominator)}
        if reading is not None:
            alone["release_reading"] = table(reading)
        return full, alone

    out: dict[str, Variants] = {}
    if "table5" in default:
        summary, alone = by_phi(lambda i: model_summary(i.delta, resampling=i.resampling))
        alone["cohens_d_rows"] = rows_cohens_d(default["table5"], base.delta)
        alone["sbs_rows"] = rows_mean_sbs(default["table5"], base.delta)
        out["table5"] = rows_mean_sbs(rows_cohens_d(summary, release.delta), release.delta), alone
    if "table2_vs" in default:

        def vs(inputs: Inputs, ddof: int) -> pl.DataFrame:
            return variation_strength(inputs.base_phi, ddof=ddof, resampling=base.resampling)

        _, alone = by_phi(lambda i: vs(i, 0))
        alone["vs_ddof"] = vs(base, 1)
        out["table2_vs"] = vs(release, 1), alone
    if "table3" in default:
        phi_only, alone = by_phi(lambda i: category_demographic_table(i.delta, resampling=i.resampling))
        table = default["table3"]
        alone["min_faces"] = table3_release_bh(
            untested_below_min_faces(table), untestable_p1=False, one_family=False
        )
        alone["untestable_p1"] = table3_release_bh(
            table, untestable_p1=True, one_family=False, empty=table3_empty_cells(table)
        )
        alone["table3_family"] = table3_release_bh(table, untestable_p1=False, one_family=True)
        release_table = table3_release_bh(
            untested_below_min_faces(phi_only),
            untestable_p1=True,
            one_family=True,
            empty=table3_empty_cells(phi_only),
        )
        out["table3"] = release_table, alone
    if "table11" in default:
        phi_only, alone = by_phi(lambda i: demographic_variation_table(i.delta, resampling=i.resampling))
        table = default["table11"]
        alone["min_faces"] = bh_by_family(untested_below_min_faces(table).drop("p_adj"), []).select(
            table.columns
        )
        alone["untestable_p1"] = untestable_as_one(table, [], table11_empty_cells(table))
        release_table = untestable_as_one(
            untested_below_min_faces(phi_only), [], table11_empty_cells(phi_only)
        )
        out["table11"] = release_table, alone
    return out


def release_table_rows(name: str, table: pl.DataFrame) -> pl.DataFrame:
    """The rows of ``result_release_<name>``: ``table`` (the release's table as
    :func:`release_tables` computes it) and, for Table 3, a row for each cell without faces as
    the release's file lists it (:func:`~.compat_rules.with_empty_table3_rows`)."""
    return with_empty_table3_rows(table) if name == "table3" else table


__all__ = [
    "CHOICES",
    "DIFFERENCE_SCHEMA",
    "TABLE_CELLS",
    "ReleasePhis",
    "Variants",
    "cell_differences",
    "release_inputs",
    "release_phi",
    "release_table_rows",
    "release_tables",
    "table3_release_bh",
    "untestable_as_one",
]

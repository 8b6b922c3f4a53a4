"""Replication mode (``cueshift analyze --compat release``): the seed release's own choices.

The StylisticBias release's evaluation scripts differ from cueshift's default tables by choices,
not bugs. Replication mode reproduces them — not the release's floating-point artefacts (its sums
are plain float sums; cueshift's are exact) — in ``result_release_<table>`` beside the default
tables, and names each differing cell in ``result_compat_differences``:

=====================  =========================================  ==============================
choice                 the release                                 cueshift (default)
=====================  =========================================  ==============================
``phi_denominator``    φ = favorable / all answers (invalid,       φ = favorable / valid answers
                       "unknown", answers count as not favorable)  (seed 000 Eq. 1)
``vs_ddof``            VS with the sample std (``ddof = 1``)        population std (``ddof = 0``)
``untestable_p1``      a cell without a test enters BH as p = 1     left out of the family
``table3_family``      Table 3's 40 category × dimension cells      BH within each dimension
                       corrected at once
=====================  =========================================  ==============================

A differing cell's ``choice`` lists the choices that change it when applied alone to the default
table (``'combined'`` when none does alone).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import duckdb
import polars as pl

from cueshift.designs.stylisticbias.inputs import Inputs
from cueshift.designs.stylisticbias.stats import (
    MEAN_OF_GROUPS,
    category_demographic_table,
    demographic_variation_table,
    model_summary,
    variation_strength,
)
from cueshift.stats import NotApplicable, bh_by_family
from cueshift.views import read_base_phi, read_delta

#: The release's choices that differ from cueshift's (module docstring), by name.
CHOICES: dict[str, str] = {
    "phi_denominator": "invalid answers counted in phi's denominator",
    "vs_ddof": "VS with the sample standard deviation (ddof 1)",
    "untestable_p1": "untestable cells entered into BH as p = 1",
    "table3_family": "Table 3 corrected over all category x dimension cells at once",
}
#: Keys and compared columns of each reproduced table.
_TESTED = ("estimate", "ci_low", "ci_high", "p", "p_adj")
TABLE_CELLS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "table5": (
        ("model_id",),
        ("estimate", "ci_low", "ci_high", "cohens_d", "zero_share", "large_share", "n_obs"),
    ),
    "table2_vs": (("model_id", "dimension"), ("estimate", "plugin_estimate", "ci_low", "ci_high")),
    "table3": (("variation_category", "dimension", "group"), _TESTED),
    "table11": (("variation_category", "variation_value", "dimension", "group"), _TESTED),
}
#: Two values differ beyond this (relative to max(1, |default|)): rounding is not a difference.
TOLERANCE = 1e-12

#: Columns of ``result_compat_differences``.
DIFFERENCE_SCHEMA: dict[str, type[pl.DataType]] = {
    "table": pl.String,
    "key": pl.String,
    "column": pl.String,
    "default_value": pl.Float64,
    "release_value": pl.Float64,
    "difference": pl.Float64,
    "choice": pl.String,
}
#: A release table and, by choice, the default table with only that choice applied.
Variants = tuple[pl.DataFrame, dict[str, pl.DataFrame]]


@contextmanager
def release_phi(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """Within the block the ``delta`` and ``base_phi`` views read the release's φ: favorable over
    **all** answers (``n_valid`` = every answer, so the exact face means stay exact). A temporary
    ``phi`` table shadows the view (as :func:`cueshift.views.phi_computed_once`); the one that
    was there before, if any, is restored."""
    had = con.sql("SELECT count(*) FROM duckdb_tables() WHERE temporary AND table_name = 'phi'").fetchall()[
        0
    ][0]
    con.execute(
        "CREATE OR REPLACE TEMP TABLE phi AS SELECT model_id, image_id, scenario_id, n_total, "
        "n_total AS n_valid, n_favorable, n_favorable::DOUBLE / nullif(n_total, 0) AS phi, phi_expected "
        "FROM main.phi"
    )
    try:
        yield
    finally:
        if had:
            con.execute("CREATE OR REPLACE TEMP TABLE phi AS SELECT * FROM main.phi")
        else:
            con.execute("DROP TABLE IF EXISTS temp.phi")


def release_inputs(inputs: Inputs) -> Inputs:
    """``inputs`` with Δ and base φ read with the release's φ (and the same ``--min-identity``)."""
    if inputs.con is None:
        raise NotApplicable("needs the study database (the release's phi is recomputed from the answers)")
    with release_phi(inputs.con):
        delta = read_delta(inputs.con, inputs.models or None)
        base = read_base_phi(inputs.con, inputs.models or None)
    if inputs.quality is not None:
        delta = inputs.quality.kept(delta)
    return dataclasses.replace(inputs, delta=delta, base_phi=base)


def untestable_as_one(frame: pl.DataFrame, family: Sequence[str]) -> pl.DataFrame:
    """``p_adj`` by BH within ``family`` with every untested cell (null p) entered as p = 1."""
    keyed = frame.drop("p_adj").with_columns(pl.col("p").fill_null(1.0).alias("__p"))
    return bh_by_family(keyed, family, p_col="__p").select(frame.columns)


def table3_release_bh(frame: pl.DataFrame, *, untestable_p1: bool, one_family: bool) -> pl.DataFrame:
    """Table 3's ``p_adj``: group rows within each dimension; the mean-of-groups cells (the
    paper's table) within each dimension, or all at once (``one_family``); untested cells left
    out, or entered as p = 1 (``untestable_p1``)."""
    mean = pl.col("group") == MEAN_OF_GROUPS
    p = pl.col("p").fill_null(1.0) if untestable_p1 else pl.col("p")
    keyed = frame.drop("p_adj").with_columns(
        p.alias("__p"),
        mean.alias("__mean"),
        pl.when(mean & one_family).then(pl.lit("all")).otherwise(pl.col("dimension")).alias("__dim"),
    )
    return bh_by_family(keyed, ["__mean", "__dim"], p_col="__p").select(frame.columns)


def release_tables(default: dict[str, pl.DataFrame], base: Inputs, release: Inputs) -> dict[str, Variants]:
    """Each table of :data:`TABLE_CELLS` the default run wrote, as the release computes it, with
    the default table under each of its choices alone (module docstring)."""
    out: dict[str, Variants] = {}
    if "table5" in default:
        summary = model_summary(release.delta, resampling=release.resampling)
        out["table5"] = summary, {"phi_denominator": summary}
    if "table2_vs" in default:

        def vs(base_phi: pl.DataFrame, ddof: int) -> pl.DataFrame:
            return variation_strength(base_phi, ddof=ddof, resampling=base.resampling)

        out["table2_vs"] = (
            vs(release.base_phi, 1),
            {
                "phi_denominator": vs(release.base_phi, 0),
                "vs_ddof": vs(base.base_phi, 1),
            },
        )
    if "table3" in default:
        phi_only = category_demographic_table(release.delta, resampling=release.resampling)
        table = default["table3"]
        out["table3"] = (
            table3_release_bh(phi_only, untestable_p1=True, one_family=True),
            {
                "phi_denominator": phi_only,
                "untestable_p1": table3_release_bh(table, untestable_p1=True, one_family=False),
                "table3_family": table3_release_bh(table, untestable_p1=False, one_family=True),
            },
        )
    if "table11" in default:
        phi_only = demographic_variation_table(release.delta, resampling=release.resampling)
        out["table11"] = (
            untestable_as_one(phi_only, []),
            {
                "phi_denominator": phi_only,
                "untestable_p1": untestable_as_one(default["table11"], []),
            },
        )
    return out


def _differs(a: pl.Expr, b: pl.Expr) -> pl.Expr:
    scale = pl.max_horizontal(pl.lit(1.0), a.abs())
    return (a.is_null() != b.is_null()) | ((a - b).abs() > TOLERANCE * scale).fill_null(False)


def _paired(table: str, left: pl.DataFrame, right: pl.DataFrame) -> pl.DataFrame:
    keys, columns = TABLE_CELLS[table]
    cast = [pl.col(c).cast(pl.Float64) for c in columns]
    joined = left.select(*keys, *cast).join(
        right.select(*keys, *cast),
        on=list(keys),
        how="full",
        coalesce=True,
        suffix="__release",
        nulls_equal=True,
    )
    key = pl.concat_str(
        [pl.lit(f"{k}=") + pl.col(k).cast(pl.String).fill_null("") for k in keys], separator="; "
    )
    return joined.with_columns(key.alias("__key"))


def cell_differences(table: str, default: pl.DataFrame, variants: Variants) -> pl.DataFrame:
    """Each (key, column) of ``table`` whose default and release values differ (schema of
    ``result_compat_differences``)."""
    release, alone = variants
    _, columns = TABLE_CELLS[table]
    pairs = _paired(table, default, release)
    changed_by = {choice: _paired(table, default, frame) for choice, frame in alone.items()}
    parts = []
    for column in columns:
        a, b = pl.col(column), pl.col(f"{column}__release")
        rows = pairs.filter(_differs(a, b)).select(
            pl.lit(table).alias("table"),
            pl.col("__key").alias("key"),
            pl.lit(column).alias("column"),
            a.alias("default_value"),
            b.alias("release_value"),
            (b - a).alias("difference"),
        )
        causes = {c: set(f.filter(_differs(a, b))["__key"].to_list()) for c, f in changed_by.items()}
        choice = [
            "+".join(c for c, keys in causes.items() if key in keys) or "combined" for key in rows["key"]
        ]
        parts.append(rows.with_columns(pl.Series("choice", choice, dtype=pl.String)))
    return pl.concat(parts) if parts else pl.DataFrame(schema=DIFFERENCE_SCHEMA)

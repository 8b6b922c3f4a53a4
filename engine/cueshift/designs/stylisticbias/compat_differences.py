"""The cells where replication mode differs from the default tables (``result_compat_differences``).

Each table of :data:`TABLE_CELLS` is compared cell by cell with its release version
(:func:`~.compat.release_tables`), and each differing cell names the release's choices that change
it alone (:func:`cell_differences`); :mod:`.compat` describes the choices.
"""

from __future__ import annotations

import polars as pl

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

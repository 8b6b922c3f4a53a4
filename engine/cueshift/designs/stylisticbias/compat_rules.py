"""The release's testing rules (``cueshift analyze --compat release``), as its evaluation scripts apply them.

``check_significance_independent.py`` (Tables 3 and 11) tests a cell only when it has at least
:data:`MIN_FACES` face means (``wilcoxon_vs_zero``), enters every untested cell into BH as p = 1
— also the cells without any face: Table 3's ten categories × four dimensions, and Table 11's
variation values × demographic groups, whether or not a face has them. It writes no Table 11 row
for a cell without faces; its Table 3 lists all 40 cells, an empty one with no faces, no mean and
p_adj 1 (:func:`with_empty_table3_rows`). ``evaluate_mllm_outputs.py`` (Table 5) takes a
model's SBS (``mean_delta``) and Cohen's d (``_cohens_d_paired``) over its Δ rows, not its faces.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import polars as pl

from cueshift.designs.stylisticbias.constants import DIMENSIONS, TABLE3_CATEGORY_MAP
from cueshift.designs.stylisticbias.stats import MEAN_OF_GROUPS
from cueshift.stats import MEAN_OF_MODELS, bh_by_family
from cueshift.study.variations import FEATURES

#: The fewest face means the release tests (fewer: no p-value).
MIN_FACES = 3
#: Table 3's categories in the release (``TABLE3_CATEGORIES``): the variation space's, merged.
TABLE3_CATEGORIES: tuple[str, ...] = tuple(
    dict.fromkeys(TABLE3_CATEGORY_MAP.get(f.category, f.category) for f in FEATURES)
)
_ABSENT = "__absent"


def untested_below_min_faces(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with no test (null ``statistic`` and ``p``) in the cells of fewer than
    :data:`MIN_FACES` faces (``n``)."""
    few = pl.col("n") < MIN_FACES
    return frame.with_columns(
        pl.when(few).then(None).otherwise(pl.col(c)).alias(c)
        for c in ("statistic", "p")
        if c in frame.columns
    )


def _missing(present: pl.DataFrame, axes: Sequence[pl.DataFrame]) -> pl.DataFrame:
    """The combinations of ``axes`` (a cross product) not among ``present``'s rows."""
    grid = axes[0]
    for axis in axes[1:]:
        grid = grid.join(axis, how="cross")
    keys = grid.columns
    return grid.join(present.select(keys).unique(), on=keys, how="anti", nulls_equal=True)


def table11_empty_cells(table: pl.DataFrame) -> pl.DataFrame:
    """Table 11's cells without a face: every variation value of ``table`` × every (dimension,
    group) of ``table`` that is not one of its rows."""
    values = table.select("variation_category", "variation_value").unique()
    groups = table.select("dimension", "group").unique()
    return _missing(table, [values, groups])


def table3_empty_cells(table: pl.DataFrame) -> pl.DataFrame:
    """Table 3's cells (mean of groups) without a face: the release's categories and those of
    ``table``, × the four dimensions, that are not rows of ``table``."""
    means = table.filter(pl.col("group") == MEAN_OF_GROUPS)
    categories = list(dict.fromkeys([*TABLE3_CATEGORIES, *table["variation_category"].to_list()]))
    dimensions = list(dict.fromkeys([*DIMENSIONS, *table["dimension"].to_list()]))
    axes = [
        pl.DataFrame({"variation_category": categories}, schema={"variation_category": pl.String}),
        pl.DataFrame({"dimension": dimensions}, schema={"dimension": pl.String}),
    ]
    return _missing(means, axes).with_columns(group=pl.lit(MEAN_OF_GROUPS))


def with_empty_table3_rows(table: pl.DataFrame) -> pl.DataFrame:
    """``table`` (a release Table 3) with a row after its own for each of its cells without faces
    (:func:`table3_empty_cells`), as the release's ``table3_significance_independent.csv`` lists
    one: 0 faces (``n``) and Δ rows, no estimate, interval or test, ``p_adj`` 1 — BH gives 1 to
    every cell it is given as p = 1 (its step-up minimum runs over cells of p = 1 only)."""
    empty = table3_empty_cells(table)
    if not (table.height and empty.height):
        return table
    rows = empty.with_columns(
        pl.lit(0, dtype=pl.Int64).alias("n"),
        pl.lit(0, dtype=pl.Int64).alias("n_obs"),
        pl.lit(1.0).alias("p_adj"),
        pl.lit(table["test"][0]).alias("test"),
    )
    return pl.concat([table, rows], how="diagonal_relaxed").select(table.columns)


def bh_with_empty_cells(
    frame: pl.DataFrame, family: Sequence[str], empty: pl.DataFrame | None, *, p: pl.Expr
) -> pl.DataFrame:
    """``p_adj`` by BH of ``p`` within ``family``, with the ``empty`` cells (rows of some of
    ``frame``'s columns) entered as p = 1 and left out again; ``frame``'s columns and rows."""
    keyed = frame.drop("p_adj").with_columns(p.alias("__p"), pl.lit(False).alias(_ABSENT))
    if empty is not None and empty.height:
        filler = empty.with_columns(pl.lit(None, dtype=pl.Float64).alias("p"), pl.lit(True).alias(_ABSENT))
        keyed = pl.concat([keyed, filler.with_columns(p.alias("__p"))], how="diagonal_relaxed")
    out = bh_by_family(keyed, family, p_col="__p")
    return out.filter(~pl.col(_ABSENT)).select(frame.columns)


def _model_deltas(delta: pl.DataFrame) -> dict[str, list[float]]:
    """Each model's finite Δ values (their order does not matter: sums are :func:`math.fsum`)."""
    data = delta.filter(pl.col("delta").is_not_null() & pl.col("delta").is_not_nan())
    out: dict[str, list[float]] = {}
    for model, value in data.select("model_id", "delta").iter_rows():
        out.setdefault(model, []).append(value)
    return out


def _exact_mean(values: list[float]) -> float:
    """The mean by a correctly rounded sum: the same bits whatever order the rows come in (the
    database's scan order varies with its threads)."""
    return math.fsum(values) / len(values)


def rows_mean_sbs(table5: pl.DataFrame, delta: pl.DataFrame) -> pl.DataFrame:
    """Table 5 with ``estimate`` the mean of each model's Δ rows (the release's ``mean_delta``),
    the ``(mean of models)`` row their mean; intervals and the other columns as they are."""
    means: dict[str, float | None] = {m: _exact_mean(values) for m, values in _model_deltas(delta).items()}
    return _per_model(table5, "estimate", means)


def rows_cohens_d(table5: pl.DataFrame, delta: pl.DataFrame) -> pl.DataFrame:
    """Table 5 with ``cohens_d`` over each model's Δ rows (mean / sample std; 0 when the std is
    0, none with fewer than 2 rows), the ``(mean of models)`` row their mean."""
    d: dict[str, float | None] = {}
    for model, values in _model_deltas(delta).items():
        if len(values) < 2:
            d[model] = None
            continue
        centre = _exact_mean(values)
        sd = math.sqrt(math.fsum((v - centre) ** 2 for v in values) / (len(values) - 1))
        d[model] = 0.0 if sd == 0 else centre / sd
    return _per_model(table5, "cohens_d", d)


def _per_model(table5: pl.DataFrame, column: str, values: dict[str, float | None]) -> pl.DataFrame:
    """Table 5 with ``column`` each model's value, the ``(mean of models)`` row their mean."""
    by_model = pl.col("model_id").replace_strict(values, default=None, return_dtype=pl.Float64)
    models = table5.filter(pl.col("model_id") != MEAN_OF_MODELS).with_columns(by_model.alias(column))
    mean = models[column].mean()
    return table5.with_columns(
        pl.when(pl.col("model_id") == MEAN_OF_MODELS)
        .then(pl.lit(mean, dtype=pl.Float64))
        .otherwise(by_model)
        .alias(column)
    )

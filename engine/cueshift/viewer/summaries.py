"""Face-level summaries of Δ for the pages, from the in-memory ``delta`` table.

Where a page is not narrowed by scenario category or demographic group, it shows the stored
result of ``cueshift analyze`` (``result_sbs``: face-level BCa intervals, Wilcoxon p with BH),
the numbers of the report. Narrowed, or on a study not analysed yet (an interrupted one), the
viewer computes the same estimates on the subset, with a face-level t interval at
:data:`VIEWER_LEVEL` :math:`c`, whatever level ``analyze`` used (the tables' labels and notes
say which level each interval has):

.. math::

    \\bar m \\pm t_{(1+c)/2,\\,n-1}\\, s_m / \\sqrt{n},

where :math:`m_f` is face :math:`f`'s mean Δ over the rows in view (models, scenarios) and
:math:`n` the number of faces (seed 000 §4.4: the face is the unit of analysis). SBS is
:math:`\\bar m`; |SBS| is the mean over model × scenario cells of the absolute cell mean Δ
(seed 000 Eq. 3–4). ``source`` says which of the two a row is.

The noise-floor placebos (``feature_key = 'placebo'``: an identical copy and a lossless re-encode
of each base, true Δ = 0; docs/decisions.md#d1) are never ranked among the attributes: :func:`noise_floor`
summarises them apart, with the same face-level estimates.
"""

from __future__ import annotations

from typing import Final

import duckdb
import numpy as np
import polars as pl
from scipy import stats as st

from cueshift import store
from cueshift.render import ci_label
from cueshift.viewer.filters import Filters
from cueshift.viewer.menus import DIMENSIONS
from cueshift.views import PLACEBO_FEATURE_KEY

POOLED = "(pooled)"
#: The level of the intervals the viewer computes itself on the rows in view (:func:`t_interval`).
VIEWER_LEVEL: Final = 0.95
#: Their header, from the same number ("95% CI").
COMPUTED_CI: Final = ci_label(VIEWER_LEVEL)
#: SELECT list of the face-level summary: estimate, sd over faces, n faces.
_FACE_SUMMARY = "avg(m) AS estimate, stddev_samp(m) AS sd, count(*)::BIGINT AS n"
#: SQL condition on ``delta`` rows (alias ``d``): a noise-floor placebo (a null key is an attribute).
IS_PLACEBO = f"coalesce(lower(d.feature_key), '') = '{PLACEBO_FEATURE_KEY}'"


def t_interval(frame: pl.DataFrame, confidence: float = VIEWER_LEVEL) -> pl.DataFrame:
    """Add ``ci_low``/``ci_high`` (t interval over faces) from ``estimate``, ``sd`` and ``n``."""
    n = frame["n"].to_numpy().astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        quantile = np.where(n > 1, st.t.ppf(0.5 + confidence / 2, np.maximum(n - 1, 1)), np.nan)
        half = quantile * frame["sd"].fill_null(np.nan).to_numpy() / np.sqrt(n)
    return frame.with_columns(
        ci_low=pl.col("estimate") - pl.Series(half), ci_high=pl.col("estimate") + pl.Series(half)
    ).with_columns(pl.col("ci_low", "ci_high").fill_nan(None))


def _stored(con: duckdb.DuckDBPyConnection, sql: str, params: list[object]) -> pl.DataFrame:
    return store.query(con, sql, params).with_columns(source=pl.lit("stored"))


def ranking(con: duckdb.DuckDBPyConnection, f: Filters, stored: bool) -> pl.DataFrame:
    """SBS and |SBS| per attribute (variation value), largest |SBS| first."""
    if stored and not f.narrowed:
        frame = _stored(
            con,
            "SELECT variation_category, variation_value, estimate, ci_low, ci_high, abs_sbs, "
            "abs_ci_low, abs_ci_high, p_adj, n FROM study.result_sbs "
            "WHERE level = 'variation_value' AND model_id = ? AND dimension IS NULL "
            f"AND coalesce(lower(variation_category), '') <> '{PLACEBO_FEATURE_KEY}'",
            [f.model or POOLED],
        )
        if frame.height:
            return frame.sort(["abs_sbs", "variation_value"], descending=[True, False])
    return _computed_ranking(con, f, placebo=False)


def noise_floor(con: duckdb.DuckDBPyConnection, f: Filters) -> pl.DataFrame:
    """The placebos' SBS and |SBS| (their noise floor), computed on the rows in view as
    :func:`ranking` computes an attribute's; empty when the study judged no placebo."""
    return _computed_ranking(con, f, placebo=True)


def _computed_ranking(con: duckdb.DuckDBPyConnection, f: Filters, *, placebo: bool) -> pl.DataFrame:
    """Face-level SBS (t interval) and cell-level |SBS| of the attributes, or of the placebos."""
    where, params = f.where()
    which = IS_PLACEBO if placebo else f"NOT {IS_PLACEBO}"
    frame = store.query(
        con,
        f"""
        WITH d AS (SELECT * FROM delta AS d WHERE d.delta IS NOT NULL AND {which} AND {where}),
        faces AS (SELECT variation_category, variation_value, face_id, avg(delta) AS m FROM d GROUP BY ALL),
        cells AS (SELECT variation_value, model_id, scenario_id, avg(delta) AS c FROM d GROUP BY ALL),
        a AS (SELECT variation_value, avg(abs(c)) AS abs_sbs FROM cells GROUP BY ALL)
        SELECT variation_category, variation_value, {_FACE_SUMMARY}, any_value(a.abs_sbs) AS abs_sbs
        FROM faces JOIN a USING (variation_value) GROUP BY ALL
        """,
        params,
    )
    return (
        t_interval(frame)
        .with_columns(source=pl.lit("computed"))
        .sort(["abs_sbs", "variation_value"], descending=[True, False])
    )


def per_scenario(con: duckdb.DuckDBPyConnection, value: str, f: Filters, stored: bool) -> pl.DataFrame:
    """Mean Δ of one attribute per model × scenario with its face-level interval."""
    if stored and f.group is None:
        where = "" if f.category is None else "AND scenario_category = ?"
        frame = _stored(
            con,
            "SELECT model_id, scenario_category, scenario_id, estimate, ci_low, ci_high, p_adj, n "
            "FROM study.result_sbs WHERE level = 'cell' AND variation_value = ? AND model_id <> ? "
            f"AND dimension IS NULL {where} AND (? IS NULL OR model_id = ?)",
            [value, POOLED, *([f.category] if f.category else []), f.model, f.model],
        )
        if frame.height:
            return frame
    where, params = f.where()
    frame = store.query(
        con,
        f"""
        SELECT model_id, scenario_category, scenario_id, {_FACE_SUMMARY}
        FROM (SELECT model_id, scenario_category, scenario_id, face_id, avg(delta) AS m
              FROM delta AS d WHERE d.variation_value = ? AND d.delta IS NOT NULL AND {where} GROUP BY ALL)
        GROUP BY ALL
        """,
        [value, *params],
    )
    return t_interval(frame).with_columns(source=pl.lit("computed"))


def by_group(con: duckdb.DuckDBPyConnection, value: str, f: Filters) -> pl.DataFrame:
    """Mean Δ of one attribute per demographic group × model (faces' mean over scenarios in view)."""
    where, params = f.without("group").where()
    parts = []
    for dimension in DIMENSIONS:
        parts.append(
            f"SELECT '{dimension}' AS dimension, {dimension} AS \"group\", model_id, face_id, "
            "avg(delta) AS m FROM delta AS d WHERE d.variation_value = ? AND d.delta IS NOT NULL "
            f"AND {dimension} IS NOT NULL AND {where} GROUP BY ALL"
        )
    sql = " UNION ALL ".join(parts)
    frame = store.query(
        con,
        f'SELECT dimension, "group", model_id, {_FACE_SUMMARY} FROM ({sql}) GROUP BY ALL',
        [p for _ in parts for p in [value, *params]],
    )
    return t_interval(frame)


def face_shifts(con: duckdb.DuckDBPyConnection, value: str, f: Filters) -> pl.DataFrame:
    """Each face's mean Δ for one attribute (over the models and scenarios in view), largest first."""
    where, params = f.where()
    frame = store.query(
        con,
        f"""
        SELECT face_id, image_id, base_image_id, avg(delta) AS delta, count(*)::BIGINT AS n_cells
        FROM delta AS d WHERE d.variation_value = ? AND d.delta IS NOT NULL AND {where}
        GROUP BY ALL
        """,
        [value, *params],
    )
    return frame.sort(["delta", "image_id"], descending=[True, False])


def _extreme(delta: float, increase: bool) -> str:
    """The label of the highest (``increase``) or lowest face shift, by the shift's sign."""
    if delta == 0:
        return "no shift"
    if (delta > 0) == increase:
        return "largest increase" if increase else "largest decrease"
    return "smallest decrease" if increase else "smallest increase"


def examples(shifts: pl.DataFrame) -> pl.DataFrame:
    """The faces with the highest, the median and the lowest mean Δ (distinct, in that order), each
    labelled by direction and size: the highest is the "largest increase" when it is positive (the
    "smallest decrease" when every face's Δ is negative), the lowest the "largest decrease" when it is
    negative; ``shifts`` is :func:`face_shifts`' frame, highest Δ first.

    >>> shifts = pl.DataFrame({"delta": [0.043, 0.01, -0.1]})
    >>> examples(shifts)["pick"].to_list()
    ['largest increase', 'median', 'largest decrease']
    >>> examples(pl.DataFrame({"delta": [-0.02, -0.1]}))["pick"].to_list()
    ['smallest decrease', 'largest decrease']
    """
    if shifts.height == 0:
        return shifts.with_columns(pick=pl.lit(None, pl.String))
    last = shifts.height - 1
    picks = [
        (_extreme(float(shifts["delta"][0]), increase=True), 0),
        ("median", last // 2),
        (_extreme(float(shifts["delta"][last]), increase=False), last),
    ]
    seen: dict[int, str] = {}
    for label, row in picks:
        seen.setdefault(row, label)
    rows = sorted(seen)
    return shifts[rows].with_columns(pick=pl.Series([seen[r] for r in rows]))

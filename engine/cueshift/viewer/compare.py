"""Two models side by side: their paired SBS difference, and the faces on which they disagree most.

The paired difference per attribute and per scenario is the stored ``result_model_differences``
of ``cueshift analyze`` (model a − model b: face-clustered bootstrap interval, paired test with
BH). It is stored once per unordered pair; asked the other way round, the viewer reverses it:

.. math::

    \\hat d_{ba} = -\\hat d_{ab}, \\qquad [l_{ba}, u_{ba}] = [-u_{ab}, -l_{ab}],

and swaps the two models' SBS. The disagreements are read from the in-memory ``delta`` table
(``sql/views/delta.sql``): per variation × scenario in view, both models' φ of the base and of
the variation and their Δ, ranked by :math:`|\\Delta_a - \\Delta_b|`.
"""

from __future__ import annotations

import duckdb
import polars as pl

from cueshift import store
from cueshift.viewer.filters import Filters
from cueshift.views import PLACEBO_FEATURE_KEY

#: Variation × scenario cells listed as the largest disagreements.
N_DISAGREEMENTS = 12
#: The levels of ``result_model_differences`` the page shows, and their table titles.
LEVELS = {"variation_value": "attribute", "scenario": "scenario"}


def differences(con: duckdb.DuckDBPyConnection, model_a: str, model_b: str) -> pl.DataFrame:
    """Stored paired differences (``a`` − ``b``) per attribute and per scenario, reversed where
    the table stores the pair as (``b``, ``a``); empty when the study has none."""
    frame = store.query(
        con,
        """
        SELECT level, variation_category, variation_value, scenario_category, scenario_id,
               CASE WHEN model_a = ? THEN sbs_a ELSE sbs_b END AS sbs_a,
               CASE WHEN model_a = ? THEN sbs_b ELSE sbs_a END AS sbs_b,
               CASE WHEN model_a = ? THEN estimate ELSE -estimate END AS estimate,
               CASE WHEN model_a = ? THEN ci_low ELSE -ci_high END AS ci_low,
               CASE WHEN model_a = ? THEN ci_high ELSE -ci_low END AS ci_high,
               p_adj, n
        FROM study.main.result_model_differences
        WHERE level IN ('variation_value', 'scenario')
          AND ((model_a = ? AND model_b = ?) OR (model_a = ? AND model_b = ?))
        ORDER BY level, variation_category, variation_value, scenario_id
        """,
        list[object]([model_a] * 5 + [model_a, model_b, model_b, model_a]),
    )
    return frame


def disagreements(
    con: duckdb.DuckDBPyConnection, model_a: str, model_b: str, f: Filters, value: str | None
) -> pl.DataFrame:
    """The variation × scenario cells in view where the two models' Δ differ most, largest first
    (of one attribute; else of all, the placebos left out)."""
    where, params = f.without("model").where(alias="a")
    # one attribute, or every attribute but the noise-floor placebos (asked for by name, they show)
    condition, extra = (
        ("AND a.variation_value = ?", [value])
        if value is not None
        else (f"AND coalesce(lower(a.feature_key), '') <> '{PLACEBO_FEATURE_KEY}'", [])
    )
    return store.query(
        con,
        f"""
        SELECT a.face_id, a.image_id, a.base_image_id, a.variation_value, a.scenario_id,
               a.phi_base AS phi_base_a, a.phi_variation AS phi_variation_a, a.delta AS delta_a,
               b.phi_base AS phi_base_b, b.phi_variation AS phi_variation_b, b.delta AS delta_b,
               a.delta - b.delta AS difference
        FROM delta AS a JOIN delta AS b
          ON b.image_id = a.image_id AND b.scenario_id = a.scenario_id AND b.model_id = ?
        WHERE a.model_id = ? AND a.delta IS NOT NULL AND b.delta IS NOT NULL AND {where} {condition}
        ORDER BY abs(a.delta - b.delta) DESC, a.image_id, a.scenario_id
        LIMIT ?
        """,
        [model_b, model_a, *params, *extra, N_DISAGREEMENTS],
    )

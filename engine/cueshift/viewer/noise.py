"""The overview's summary of the stored noise floor: one row per model, the full tables a link away.

``cueshift analyze`` stores the placebos' floor (``result_noise_floor``) and each attribute against
it (``result_noise_floor_attributes``); the overview shows, per model in view and pooled over
models, the SBS of all placebos together with its interval, the mean and 95th-percentile placebo
cell |SBS|, and how many attributes pass the floor. The design's own page shows both tables in
full (``/design/stylisticbias/noise-floor``).
"""

from __future__ import annotations

import duckdb

from cueshift import store
from cueshift.render import Col, fmt_text, stub
from cueshift.viewer import tables
from cueshift.viewer.filters import Filters
from cueshift.viewer.summaries import POOLED

#: The row of ``result_noise_floor`` that pools every placebo value.
ALL_PLACEBOS = "(all placebos)"
FLOOR, ATTRIBUTES = "result_noise_floor", "result_noise_floor_attributes"


def summary(con: duckdb.DuckDBPyConnection, f: Filters, has: frozenset[str]) -> str | None:
    """great_tables HTML of the stored floor per model (``None`` when the study stores none)."""
    if FLOOR not in has:
        return None
    passing = (
        "SELECT model_id, count(*) FILTER (WHERE passes)::BIGINT AS n_pass, "
        f"count(*)::BIGINT AS n_attributes FROM study.main.{ATTRIBUTES} GROUP BY ALL"
        if ATTRIBUTES in has
        else "SELECT NULL::VARCHAR AS model_id, NULL::BIGINT AS n_pass, NULL::BIGINT AS n_attributes"
    )
    frame = store.query(
        con,
        f"""
        SELECT CASE WHEN model_id = ? THEN 'Pooled over models' ELSE model_id END AS model,
               estimate, ci_low, ci_high, abs_sbs_mean, abs_sbs_quantile, n,
               CASE WHEN n_attributes IS NULL THEN NULL ELSE n_pass || ' of ' || n_attributes END AS passing
        FROM study.main.{FLOOR} LEFT JOIN ({passing}) USING (model_id)
        WHERE variation_value = ? AND (model_id = ? OR ? IS NULL OR model_id = ?)
        ORDER BY model_id = ? DESC, model_id
        """,
        [POOLED, ALL_PLACEBOS, POOLED, f.model, f.model, POOLED],
    )
    return tables.render(
        frame,
        key="noise-floor",
        title="Stored noise floor (all placebos together)",
        columns=[
            stub("model", "Model"),
            Col("estimate", "Placebo SBS", tables.signed),
            Col("ci_low", tables.stored_ci(con, FLOOR), tables.ci, args=("ci_high",)),
            Col("abs_sbs_mean", "Mean cell |SBS|", tables.number),
            Col("abs_sbs_quantile", "95th pct cell |SBS|", tables.number),
            Col("n", "Faces", tables.count),
            Col("passing", "Attributes above the floor", fmt_text),
        ],
        notes=[
            "result_noise_floor (cueshift analyze): the placebo SBS should contain 0; an attribute passes "
            "when its faces' |Δ| exceeds their placebo |Δ| (one-sided Wilcoxon, BH, p < 0.05)."
        ],
        empty="No stored noise floor for the models in view.",
    )

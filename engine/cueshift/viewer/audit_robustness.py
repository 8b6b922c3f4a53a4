"""How robust the audit run's shifts are, in the viewer: the failed-edits page's robustness table.

``result_audit_sensitivity`` (``cueshift analyze --audit``) holds per model × attribute the
robustness value of each SBS (Cinelli & Hazlett 2020; D40) and its benchmark bound (D46). The
page shows those of the SBS the run reports (audited edits under ``--audit strict``, every edit
under ``report``), picked by :func:`~cueshift.designs.stylisticbias.audit_robustness.reported`
as the report's Table A1 and the console line do, and formatted at render time only. A table
stored before these columns existed still opens: its cells are blank and a note says to re-run.
"""

from __future__ import annotations

import duckdb
import polars as pl

from cueshift import store
from cueshift.designs.stylisticbias.audit_robustness import reported
from cueshift.render import Col, ci, ci_label, effect, percent, stored_level, stub
from cueshift.stats import POOLED
from cueshift.viewer import tables

#: The note under the table: what each column holds.
NOTE = (
    "result_audit_sensitivity (`cueshift analyze --audit`): the SBS the run reports (audited edits "
    "under `--audit strict`, every edit under `report`). RV: the share of the residual variance of "
    "both cue and judgment an unmeasured side effect of the edits must explain to erase it (Cinelli & "
    "Hazlett 2020); RV (α): to make it non-significant. Net of measured: the SBS in its face-level "
    "model holding the CLIP confound probes; 1× probe: net of an unmeasured side effect as strong as "
    "the probe that moves it most (named), with its interval; blank where a variation lacks a probe."
)
#: The note when the stored table predates the robustness values or their bound.
OLDER = "stored before {what} existed: re-run `cueshift analyze --audit` to see them."


def robustness(con: duckdb.DuckDBPyConnection, stored: frozenset[str]) -> pl.DataFrame | None:
    """Per model (pooled first) × attribute of the latest ``cueshift analyze --audit``: the stored
    row with the reported set's columns unprefixed (``sbs, rv, rv_alpha, bound_*``, null where the
    table predates them) and ``model``, unformatted. None without an audit run, or when the table
    was left by an earlier run (the manifest no longer lists it)."""
    if not {"result_audit_sensitivity", "result_manifest"} <= stored:
        return None
    rows = store.query(
        con,
        "SELECT * FROM study.main.result_audit_sensitivity WHERE EXISTS "
        "(SELECT 1 FROM study.main.result_manifest WHERE name = 'audit_sensitivity') "
        "ORDER BY model_id = ? DESC, model_id, feature_key",
        [POOLED],
    )
    if rows.height == 0:
        return None
    model = pl.when(pl.col("model_id") == POOLED).then(pl.lit("Pooled over models")).otherwise("model_id")
    return reported(rows).with_columns(model=model)


def older(frame: pl.DataFrame) -> str | None:
    """The note saying the stored table predates the robustness values or their bound (None: current)."""
    if "all_rv" not in frame.columns:
        return "Robustness values: " + OLDER.format(what="them")
    if "all_bound_sbs" not in frame.columns:
        return "Benchmark bounds: " + OLDER.format(what="them")
    return None


def robustness_level(con: duckdb.DuckDBPyConnection) -> float:
    """The level of the stored intervals (``result_manifest``'s for ``result_audit_sensitivity``)."""
    return stored_level(con, ("result_audit_sensitivity",))


def robustness_table(frame: pl.DataFrame, level: float) -> str:
    """great_tables HTML of :func:`robustness`'s rows: the reported SBS, RV, RV (α) and the bound,
    the intervals headed with ``level`` (:func:`robustness_level`)."""
    return tables.render(
        frame,
        key="audit-robustness",
        title="Robustness of the shifts to unmeasured side effects of the edits (Table A1)",
        columns=[
            stub("feature_key", "Attribute"),
            Col("sbs", "SBS", tables.signed),
            Col("ci_low", ci_label(level), tables.ci, args=("ci_high",)),
            Col("rv", "RV", percent(1)),
            Col("rv_alpha", "RV (α)", percent(1)),
            Col("bound_from", "Net of measured", effect(4)),  # signed, as the report's Table A1
            Col("bound_confound", "Strongest probe", align="left"),
            Col("bound_sbs", "SBS (1× probe)", effect(4)),
            Col("bound_ci_low", f"{ci_label(level)} (1× probe)", ci(4), args=("bound_ci_high",)),
        ],
        group="model",
        notes=[NOTE],
    )

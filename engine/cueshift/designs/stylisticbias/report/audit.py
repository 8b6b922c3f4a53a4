"""StylisticBias report: the edit audit carried into the results (``cueshift analyze --audit``).

Each attribute's SBS with every edit, with the audited edits only, and adjusted for the measured
unintended changes (``result_audit_sensitivity``), and one sentence on what the audit did. A
table left by an earlier ``--audit`` run is not shown: the rows must be in this run's manifest.
With ``[audit.faces]`` the face models' tables follow (:mod:`.audit_faces`). Nothing is
recomputed here.
"""

from __future__ import annotations

from typing import Any

from cueshift.designs.stylisticbias.audit_robustness import least_robust
from cueshift.designs.stylisticbias.method_names import CI_METHOD
from cueshift.designs.stylisticbias.report.audit_faces import FACE_TABLES, FACE_TEXTS
from cueshift.render import (
    CI_LABEL,
    MODELS_FILTER,
    Col,
    FigureSpec,
    Source,
    TableSpec,
    TextSpec,
    ci,
    ci_label,
    effect,
    fmt_ci,
    fmt_effect,
    fmt_integer,
    fmt_number,
    fmt_percent,
    fmt_pvalue,
    percent,
    stored_level,
    stub,
)
from cueshift.stats import POOLED

_MODELS = f"(model_id = '{POOLED}' OR {MODELS_FILTER})"
#: Rows of this run's table only (a table written by an earlier ``--audit`` run stays in the file).
_CURRENT = "EXISTS (SELECT 1 FROM result_manifest WHERE name = 'audit_sensitivity')"

AUDIT_SENSITIVITY = TableSpec(
    key="audit_sensitivity",
    title="Table A1. Edit audit: SBS with every edit, audited edits only, adjusted for unintended changes",
    sql=f"""
    SELECT CASE WHEN model_id = '{POOLED}' THEN 'Pooled over models' ELSE model_id END AS model,
           feature_key, all_sbs, all_ci_low, all_ci_high, audited_sbs, audited_ci_low, audited_ci_high,
           adjusted_sbs, adjusted_ci_low, adjusted_ci_high, change_audited, change_adjusted,
           n_variations, n_failed, p,
           CASE WHEN audit = 'strict' THEN audited_rv ELSE all_rv END AS rv,
           CASE WHEN audit = 'strict' THEN audited_rv_alpha ELSE all_rv_alpha END AS rv_alpha,
           CASE WHEN audit = 'strict' THEN audited_bound_sbs ELSE all_bound_sbs END AS bound_sbs
    FROM result_audit_sensitivity WHERE {_MODELS} AND {_CURRENT}
    ORDER BY model_id = '{POOLED}' DESC, model_id, feature_key
    """,
    columns=(
        stub("feature_key", "Attribute"),
        Col("all_sbs", "SBS (all)", effect(4)),
        Col("all_ci_low", CI_LABEL, ci(4), args=("all_ci_high",)),
        Col("audited_sbs", "SBS (audited)", effect(4)),
        Col("audited_ci_low", CI_LABEL, ci(4), args=("audited_ci_high",)),
        Col("adjusted_sbs", "SBS (adjusted)", effect(4)),
        Col("adjusted_ci_low", CI_LABEL, ci(4), args=("adjusted_ci_high",)),
        Col("change_audited", "Δ audited", effect(4)),
        Col("change_adjusted", "Δ adjusted", effect(4)),
        Col("n_variations", "Variations", fmt_integer),
        Col("n_failed", "Failed", fmt_integer),
        Col("p", "p (confounds)", fmt_pvalue),
        Col("rv", "RV", percent(1)),
        Col("rv_alpha", "RV (α)", percent(1)),
        Col("bound_sbs", "SBS (1× probe)", effect(4)),
    ),
    group="model",
    notes=(
        "SBS: the attribute's face-level mean Δ (seed 000 Eq. 4, over its values and scenarios) with a "
        f"face-level {CI_METHOD} bootstrap CI, over every edit (all) and over the edits that passed every "
        "measure of "
        "the edit audit (audited: the intended cue detected, no unintended change beyond its robust z or "
        "absolute bound, identity preserved). Adjusted: every edit, Δ minus the part a face-weighted "
        "regression of Δ on the edit's CLIP confound probes (variation − base: expression, lighting, "
        "background, pose ...; pixel statistics carry the cue itself and adjust nothing) attributes to them; "
        "the intercept, with a face-clustered CI. Δ audited / Δ adjusted: the change against SBS (all). "
        "p (confounds): face-clustered Wald test that the unintended changes do not move Δ.",
        "RV: robustness value (Cinelli & Hazlett 2020) of the SBS the other tables report (audited "
        "edits under `--audit strict`, every edit under `report`), in its face-level model: an "
        "unmeasured side effect of the edits that explains this share of the residual variance of "
        "both the cue and the judgment (within faces) erases the SBS, one that explains less of both "
        "cannot. RV (α): the share that makes it non-significant at the intervals' level (0: it is not "
        "significant to begin with). SBS (1× probe): that SBS in its face-level model holding the "
        "CLIP confound probes, net of an unmeasured side effect as strong as the probe that moves it "
        "most (in partial R² with both cue and judgment; Cinelli & Hazlett 2020 §6.1); blank where a "
        "variation lacks a probe.",
    ),
    requires=("result_audit_sensitivity", "result_manifest"),
    empty="no edit audit in these results: run `cueshift audit`, then `cueshift analyze --audit report`.",
)


def audit_summary(report: Source) -> str:
    """One sentence: the ``--audit`` mode, the edits that failed, the largest SBS changes; and one
    on the least robust significant shift (:func:`robustness_reading`)."""
    rows = report.query(f"""
        SELECT (SELECT any_value(audit) FROM result_manifest WHERE name = 'audit_sensitivity') AS mode,
               sum(n_failed) AS n_failed, sum(n_variations) AS n,
               max(abs(change_audited)) AS audited, max(abs(change_adjusted)) AS adjusted
        FROM result_audit_sensitivity WHERE model_id = '{POOLED}' AND {_CURRENT}""")
    if rows.height == 0 or rows["n"][0] is None:
        return ""
    r = rows.row(0, named=True)
    fate = (
        "left out of every analysis of this report (`--audit strict`)"
        if r["mode"] == "strict"
        else "kept in the other tables (`--audit report`)"
    )
    return (
        f"{fmt_integer(r['n_failed'])} of {fmt_integer(r['n'])} variations failed the edit audit and are "
        f"{fate}; the largest change of an attribute's SBS is {fmt_number(r['audited'], 4)} with the "
        f"audited edits only and {fmt_number(r['adjusted'], 4)} adjusted for the measured unintended "
        "changes." + robustness_reading(report) + "\n"
    )


def robustness_reading(report: Source) -> str:
    """One sentence (with a leading space): how many shifts are significant and how strong an
    unmeasured side effect of the edits would have to be to erase the least robust of them; and
    one on where a side effect as strong as the strongest measured one would leave it (D46). The
    shift is :func:`~cueshift.designs.stylisticbias.audit_robustness.least_robust`'s, as on the
    console line after ``cueshift analyze`` and in the viewer."""
    found = least_robust(
        report.query(f"SELECT * FROM result_audit_sensitivity WHERE {_MODELS} AND {_CURRENT}")
    )
    if found is None:
        return ""
    if found.least is None:
        return f" None of the {found.n_shifts} attribute shifts is significant in its face-level t test."
    r = found.least
    return (
        f" {found.n_significant} of {found.n_shifts} attribute shifts are significant in their face-level t "
        "test; the least robust "
        f"({r['feature_key']}, {found.model}) is erased by an unmeasured side effect of the edits that "
        f"explains {fmt_percent(r['rv'], 1)} of the residual variance of both cue and judgment, "
        f"and made non-significant by one that explains {fmt_percent(r['rv_alpha'], 1)}."
        + _bound_reading(r, ci_label(stored_level(report, ("result_audit_sensitivity",))))
    )


def _bound_reading(row: dict[str, Any], interval_label: str) -> str:
    """Where a side effect as strong as the strongest measured one leaves the shift net of the
    measured ones (D46; empty where there is no bound)."""
    if row["bound_sbs"] is None or row["bound_from"] is None:
        return ""
    interval = (
        f" ({interval_label} {fmt_ci(row['bound_ci_low'], row['bound_ci_high'], 4)})"
        if row["bound_ci_low"] is not None and row["bound_ci_high"] is not None
        else ""
    )
    return (
        f" Net of the measured side effects it is {fmt_effect(row['bound_from'], 4)}; an unmeasured one "
        f"as strong as the strongest measured ({row['bound_confound']}) would leave it at "
        f"{fmt_effect(row['bound_sbs'], 4)}{interval}."
    )


AUDIT_TABLES: tuple[TableSpec, ...] = (AUDIT_SENSITIVITY, *FACE_TABLES)
AUDIT_FIGURES: tuple[FigureSpec, ...] = ()
AUDIT_TEXTS: tuple[TextSpec, ...] = (
    TextSpec("audit_summary", audit_summary, ("result_audit_sensitivity", "result_manifest")),
    *FACE_TEXTS,
)

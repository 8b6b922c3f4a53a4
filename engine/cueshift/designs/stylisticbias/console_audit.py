"""The edit audit's lines after ``cueshift analyze --audit``: what the audit did to the SBS, and
how robust the reported shifts are (the report's reading, :mod:`.audit_robustness`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl
from rich.console import Console

from cueshift.designs.stylisticbias.audit_robustness import least_robust
from cueshift.render import PLAIN_MINUS, fmt_ci, fmt_num, fmt_percent

if TYPE_CHECKING:
    from cueshift.designs.stylisticbias.edit_audit import EditAudit


def print_audit(audit: EditAudit, sensitivity: pl.DataFrame | None, console: Console) -> None:
    """One line: how many variations failed the edit audit, what ``--audit`` did with them, and
    the largest change of an attribute's SBS (audited edits only; adjusted) in
    ``result_audit_sensitivity``; then one on the least robust significant shift
    (:func:`robustness_line`)."""
    n_failed, n = audit.n_failed, audit.n_evaluated
    fate = "left out of the analyses" if audit.mode == "strict" else "kept: --audit report"
    line = f"{n_failed:,} of {n:,} variations failed the audit ({fate})"
    if sensitivity is not None and sensitivity.height:
        largest = {
            c: sensitivity[c].abs().max() for c in ("change_audited", "change_adjusted")
        }  # None when every value is null
        line += f"; largest SBS change {fmt_num(largest['change_audited'], 3)} (audited edits only)"
        if largest["change_adjusted"] is not None:
            line += f", {fmt_num(largest['change_adjusted'], 3)} (adjusted for the confound probes)"
        line += ": result_audit_sensitivity"
        robustness = robustness_line(sensitivity)
        if robustness:
            line += "\n  " + robustness
    console.print(line, markup=False, highlight=False, soft_wrap=True)


def robustness_line(sensitivity: pl.DataFrame) -> str:
    """How many shifts are significant, and the least robust of them: its RV and RV_α, the SBS
    net of the measured side effects and net of an unmeasured one as strong as the strongest
    measured, with its interval (D46) — the numbers of the report's robustness sentence, in
    plain text (empty when no shift has a robustness value)."""
    found = least_robust(sensitivity)
    if found is None:
        return ""
    if found.least is None:
        return f"robustness: none of the {found.n_shifts} attribute shifts is significant"
    r = found.least
    line = (
        f"robustness: {found.n_significant} of {found.n_shifts} attribute shifts significant; least robust "
        f"{r['feature_key']} ({found.model}): RV {fmt_percent(r['rv'], 1)}, "
        f"RV_alpha {fmt_percent(r['rv_alpha'], 1)}"
    )
    return line + _bound(r)


def _bound(row: dict[str, Any]) -> str:
    """The benchmark bound of the shift, as the report words it (empty where there is none)."""
    if row["bound_sbs"] is None or row["bound_from"] is None:
        return ""
    interval = fmt_ci(row["bound_ci_low"], row["bound_ci_high"], 4, minus=PLAIN_MINUS, missing="")
    return (
        f"; net of the measured side effects {fmt_num(row['bound_from'], 4, signed=True)}, "
        f"with an unmeasured one as strong as {row['bound_confound']} "
        f"{fmt_num(row['bound_sbs'], 4, signed=True)}{' ' if interval else ''}{interval}"
    )

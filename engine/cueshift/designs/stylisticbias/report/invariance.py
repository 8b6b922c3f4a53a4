"""StylisticBias report: do the stored answers depend on batching? (``cueshift check-invariance``),
read from ``result_invariance``. Nothing is recomputed here; docs/invariance.md.
"""

from __future__ import annotations

from cueshift.render import (
    MODELS_FILTER,
    Col,
    Source,
    TableSpec,
    TextSpec,
    ci,
    ci_label,
    effect,
    fmt_percent,
    number,
    percent,
)
from cueshift.schemas.invariance import INVARIANCE_LEVEL

_REQUIRES = ("result_invariance",)
#: The header of Δφ's interval: the level ``check-invariance`` computes it at (not ``analyze``'s).
_CI = ci_label(INVARIANCE_LEVEL)

INVARIANCE = TableSpec(
    key="invariance",
    title="Table B1. Stored answers asked again one at a time and batched",
    sql=f"""
    SELECT model_id, replace(comparison, '_', ' ') AS comparison, share_identical, n, kappa,
           phi_diff, phi_diff_ci_low, phi_diff_ci_high,
           CASE WHEN flagged THEN 'FLAG' WHEN checked THEN 'ok' ELSE 'not checked' END AS verdict
    FROM result_invariance WHERE {MODELS_FILTER}
    ORDER BY model_id, comparison
    """,
    columns=(
        Col("model_id", "Model", align="left"),
        Col("comparison", "Asked", align="left"),
        Col("share_identical", "Identical", percent(1)),
        Col("n", "of", number(0)),
        Col("kappa", "κ", number(3)),
        Col("phi_diff", "Δφ", effect(3)),
        Col("phi_diff_ci_low", _CI, ci(3), args=("phi_diff_ci_high",)),
        Col("verdict", "", align="left"),
    ),
    notes=(
        "A stratified sample of stored judgments (scenario category × ordering) asked again with the "
        "same seeds: one at a time, in the run's batches, and (generate runs) in score mode. Identical: "
        "the share of the same outcome; κ: Cohen's kappa; Δφ: re-asked minus stored share favorable, "
        f"{_CI} clustered by face (`cueshift check-invariance` computes it at this level, whatever level "
        "`analyze` used). FLAG: fewer identical answers than the bound (docs/invariance.md).",
    ),
    requires=_REQUIRES,
)


def invariance_summary(report: Source) -> str:
    """One sentence: the models whose answers depend on batching, or that none does."""
    rows = report.query(f"""
        SELECT model_id, comparison, share_identical, bound FROM result_invariance
        WHERE {MODELS_FILTER} AND flagged ORDER BY model_id, comparison""")
    if rows.height == 0:
        return "No model's answers depend on batching beyond the bound.\n"
    flags = "; ".join(
        f"{r['model_id']} ({r['comparison'].replace('_', ' ')}: {fmt_percent(r['share_identical'], 1)} "
        f"identical, bound {fmt_percent(r['bound'], 0)})"
        for r in rows.iter_rows(named=True)
    )
    return f"**FLAG: answers depend on batching** for {flags}; their results are not batch-invariant.\n"


INVARIANCE_TABLES: tuple[TableSpec, ...] = (INVARIANCE,)
INVARIANCE_TEXTS: tuple[TextSpec, ...] = (TextSpec("invariance_summary", invariance_summary, _REQUIRES),)

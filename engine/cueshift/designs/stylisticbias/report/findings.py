"""StylisticBias report: the summary that opens the document, one line per research question.

Each line quotes stored results (``result_table2_vs``, ``result_sbs``, ``result_cross_model``)
at render time and is left out when its table is missing; the sections that follow show the
tables. Nothing is recomputed here.
"""

from __future__ import annotations

from cueshift.render import Source, TextSpec, fmt_effect, fmt_number
from cueshift.stats import POOLED

#: Model id of the VS rows averaged over models (``result_table2_vs``).
MEAN_OF_MODELS = "(mean of models)"
#: Attributes the RQ2 line names.
TOP_ATTRIBUTES = 3


def _rq1(report: Source) -> str:
    rows = report.query(
        "SELECT dimension, estimate FROM result_table2_vs WHERE model_id = $who ORDER BY estimate DESC",
        {"who": MEAN_OF_MODELS},
    )
    if rows.height == 0:
        return ""
    names = [str(d).replace("_", " ") for d in rows["dimension"]]
    ranked = ", ".join(f"{d} {fmt_number(v, 3)}" for d, v in zip(names, rows["estimate"], strict=True))
    return (
        f"**RQ1** (base faces): judgments differ most along {names[0]}; Variation Strength "
        f"(mean of models), largest first: {ranked}."
    )


def _rq2(report: Source) -> str:
    rows = report.query(
        "SELECT variation_value, estimate, abs_sbs FROM result_sbs WHERE level = 'variation_value' "
        "AND model_id = $who AND dimension IS NULL AND coalesce(lower(variation_category), '') <> 'placebo' "
        "ORDER BY abs_sbs DESC, variation_value LIMIT $k",
        {"who": POOLED, "k": TOP_ATTRIBUTES},
    )
    if rows.height == 0:
        return ""
    named = ", ".join(
        f"{r['variation_value']} (|SBS| {fmt_number(r['abs_sbs'], 3)}, SBS {fmt_effect(r['estimate'], 3)})"
        for r in rows.iter_rows(named=True)
    )
    return f"**RQ2**: the attributes with the largest |SBS| pooled over models are {named}."


def _rq3(report: Source) -> str:
    rows = report.query(
        "SELECT model_a, model_b, estimate FROM result_cross_model "
        "WHERE list_contains($models, model_a) AND list_contains($models, model_b) ORDER BY model_a, model_b",
        {"models": list(report.models)},
    )
    if rows.height == 0:
        return ""
    pairs = ", ".join(
        f"{r['model_a']}–{r['model_b']} r = {fmt_number(r['estimate'], 2)}"
        for r in rows.iter_rows(named=True)
    )
    return f"**RQ3**: per-scenario SBS agreement between models (Pearson r): {pairs}."


def key_findings(report: Source) -> str:
    """One line per research question that the database has results for ("" when none)."""
    lines = []
    for line, table in ((_rq1, "result_table2_vs"), (_rq2, "result_sbs"), (_rq3, "result_cross_model")):
        if report.has(table):
            text = line(report)
            if text:
                lines.append(text)
    return "".join(f"- {line}\n" for line in lines)


FINDINGS_TEXTS: tuple[TextSpec, ...] = (TextSpec("key_findings", key_findings),)

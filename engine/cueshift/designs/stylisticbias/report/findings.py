"""StylisticBias report: the summary that opens the document, one line per research question.

Each line quotes stored results (``result_table2_vs`` and ``result_table9``, ``result_sbs``,
``result_cross_model``) with the test, interval and n behind them at render time, and is left out
when its table is missing; the sections that follow show the tables. Nothing is recomputed here.
"""

from __future__ import annotations

from cueshift.designs.stylisticbias.method_names import CI_METHOD, FACE_TEST_NAME, GROUP_TESTS
from cueshift.render import (
    SIMULATED_MODELS_SQL,
    Source,
    TextSpec,
    ci_label,
    fill_methods,
    fmt_ci,
    fmt_effect,
    fmt_integer,
    fmt_number,
    fmt_percent,
    fmt_pvalue,
    stored_level,
    stored_methods,
)
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
    line = (
        f"**RQ1** (base faces): the largest Variation Strength is {names[0]}'s (mean of models, "
        f"point estimates, Table 2; largest first): {ranked}."
    )
    if report.has("result_table9"):  # the test behind the ranking: Table 9's share of scenarios
        shares = report.query(
            "SELECT dimension, estimate, alpha, (SELECT max(n) FROM result_table9 WHERE model_id <> $who) "
            "AS n FROM result_table9 WHERE model_id = $who ORDER BY estimate DESC, dimension",
            {"who": MEAN_OF_MODELS},
        )
        if shares.height:
            named = ", ".join(
                f"{str(r['dimension']).replace('_', ' ')} {fmt_percent(r['estimate'])}"
                for r in shares.iter_rows(named=True)
            )
            tests = fill_methods(GROUP_TESTS, stored_methods(report, ("result_table9",)))
            line += (
                f" Scenarios with a significant group difference (Table 9: {tests}, "
                f"BH within model × dimension, α = {shares['alpha'][0]}, "
                f"{shares['n'][0]} scenarios per model; mean of models): {named}."
            )
    return line


def _rq2(report: Source) -> str:
    rows = report.query(
        "SELECT variation_value, estimate, ci_low, ci_high, abs_sbs, p_adj, n FROM result_sbs "
        "WHERE level = 'variation_value' AND model_id = $who AND dimension IS NULL "
        "AND coalesce(lower(variation_category), '') <> 'placebo' "
        "ORDER BY abs_sbs DESC, variation_value LIMIT $k",
        {"who": POOLED, "k": TOP_ATTRIBUTES},
    )
    if rows.height == 0:
        return ""
    interval_label = ci_label(stored_level(report, ("result_sbs",)))
    named = ", ".join(
        f"{r['variation_value']} (|SBS| {fmt_number(r['abs_sbs'], 3)}, SBS {fmt_effect(r['estimate'], 3)}, "
        f"{interval_label} {fmt_ci(r['ci_low'], r['ci_high'], 3)}, p_adj {fmt_pvalue(r['p_adj'])}, "
        f"{fmt_integer(r['n'])} faces)"
        for r in rows.iter_rows(named=True)
    )
    methods = fill_methods(
        f"face-level {CI_METHOD} bootstrap CI; {FACE_TEST_NAME} on per-face mean Δ, BH",
        stored_methods(report, ("result_sbs",)),
    )
    return f"**RQ2**: the attributes with the largest |SBS| pooled over models are {named} ({methods})."


def _rq3(report: Source) -> str:
    rows = report.query(
        "SELECT model_a, model_b, estimate, ci_low, ci_high, p, n FROM result_cross_model "
        "WHERE list_contains($models, model_a) AND list_contains($models, model_b) ORDER BY model_a, model_b",
        {"models": list(report.models)},
    )
    if rows.height == 0:
        return ""
    interval_label = ci_label(stored_level(report, ("result_cross_model",)))
    pairs = ", ".join(
        f"{r['model_a']}–{r['model_b']} r = {fmt_effect(r['estimate'], 2)} ({interval_label} "
        f"{fmt_ci(r['ci_low'], r['ci_high'], 2)}, p {fmt_pvalue(r['p'])}, {fmt_integer(r['n'])} scenarios)"
        for r in rows.iter_rows(named=True)
    )
    return f"**RQ3**: per-scenario SBS agreement between models (Pearson r, Table S5): {pairs}."


def _simulated(report: Source) -> str:
    """A lead-in naming the report's simulated judges ("" when none or no model table)."""
    if not report.has("model"):
        return ""
    rows = report.query(SIMULATED_MODELS_SQL, {"models": list(report.models)})
    if rows.height == 0:
        return ""
    names = ", ".join(str(m) for m in rows["model_id"])
    return (
        f"*Simulated judges ({names}): the findings below recover the simulation's planted effects "
        "and say nothing about any real model.*\n\n"
    )


def key_findings(report: Source) -> str:
    """One line per research question that the database has results for ("" when none), led by a
    note when the report's judges are simulated."""
    lines = []
    for line, table in ((_rq1, "result_table2_vs"), (_rq2, "result_sbs"), (_rq3, "result_cross_model")):
        if report.has(table):
            text = line(report)
            if text:
                lines.append(text)
    if not lines:
        return ""
    return _simulated(report) + "".join(f"- {line}\n" for line in lines)


FINDINGS_TEXTS: tuple[TextSpec, ...] = (TextSpec("key_findings", key_findings),)

"""The probe report's reliability and similarity tables (seed 004 Eq. 4, Figs. 1, 3–4): human
reliability per attribute (Table 1), model–human similarity (Table 2) and their link (Table 3)."""

# ruff: noqa: E501  (declared SQL reads best unwrapped)
from __future__ import annotations

from cueshift.render import (
    CI_LABEL,
    EMPHASIS_LEGEND,
    MODELS_FILTER,
    Col,
    Pivot,
    TableSpec,
    ci,
    fmt_integer,
    fmt_pvalue,
    number,
    stub,
)

SIMILARITY_TABLES: tuple[TableSpec, ...] = (
    TableSpec(
        key="probe_reliability",
        title="Table 1. Human reliability per attribute: split-half (Spearman–Brown) and Krippendorff's α",
        sql="""SELECT attribute, estimate, split_low, split_high, alpha_interval, alpha_ordinal, n_raters, n
           FROM result_probe_reliability ORDER BY estimate DESC NULLS LAST""",
        columns=(
            stub("attribute", "Attribute"),
            Col("estimate", "Split-half (SB)", number(3)),
            Col("split_low", "Splits 2.5–97.5%", ci(3, False), args=("split_high",)),
            Col("alpha_interval", "α interval", number(3)),
            Col("alpha_ordinal", "α ordinal", number(3)),
            Col("n_raters", "Raters", fmt_integer),
            Col("n", "Stimuli", fmt_integer),
        ),
        notes=(
            "Split-half (SB): the raters split at random into two halves, the correlation of the halves' "
            "mean ratings over the stimuli corrected by Spearman–Brown, averaged over the splits. Splits "
            "2.5–97.5%: the spread of the random splits (their 2.5th and 97.5th percentiles), not a "
            "confidence interval. α: Krippendorff's α, interval and ordinal metrics.",
        ),
        notes_sql="""SELECT max(n_splits) || ' random splits per attribute.' FROM result_probe_reliability
                     WHERE n_splits IS NOT NULL HAVING count(*) > 0""",
        requires=("result_probe_reliability",),
    ),
    TableSpec(
        key="probe_similarity",
        title="Table 2. Model–human similarity ρ per attribute (seed 004 Eq. 4; per model, the values behind its Fig. 1)",
        sql=f"""SELECT attribute, model_id, estimate, p_adj,
                   avg(estimate) OVER (PARTITION BY attribute) AS mean_rho
            FROM result_probe_similarity WHERE {MODELS_FILTER} ORDER BY mean_rho DESC, attribute, model_id""",
        columns=(stub("attribute", "Attribute"),),
        pivot=Pivot(on="model_id", value="estimate", fmt=number(2), p="p_adj"),
        notes=(
            "Spearman ρ between the model's scores and the human means over the stimuli; BH over attributes "
            "per model. Seed 004's Table 1 summarises these values per dataset size: Tables 2b–2c.",
            EMPHASIS_LEGEND,
        ),
        notes_sql=f"""SELECT 'n: ' || min(n) || CASE WHEN min(n) < max(n) THEN '–' || max(n) ELSE '' END
                        || ' stimuli per correlation.' FROM result_probe_similarity WHERE {MODELS_FILTER}
                     HAVING count(*) > 0""",
        requires=("result_probe_similarity",),
    ),
    TableSpec(
        key="probe_reliability_similarity",
        title="Table 3. Reliability predicts model–human similarity (seed 004 Fig. 3–4)",
        sql="""SELECT level, name, estimate, ci_low, ci_high, p, n, test
           FROM result_probe_reliability_similarity ORDER BY level DESC, name""",
        columns=(
            stub("level", "Level"),
            stub("name", "Model / family"),
            Col("estimate", "Correlation", number(2), p="p"),
            Col("ci_low", CI_LABEL, ci(2), args=("ci_high",)),
            Col("p", "p", fmt_pvalue),
            Col("n", "Attributes", fmt_integer),
            Col("test", "Method", align="left"),
        ),
        notes=(
            "Correlation across the attributes between the human split-half reliability (Table 1) and the "
            "model–human similarity ρ (Table 2); family: the mean similarity of the family's models. "
            "Fisher z interval; p unadjusted.",
            EMPHASIS_LEGEND,
        ),
        requires=("result_probe_reliability_similarity",),
    ),
)

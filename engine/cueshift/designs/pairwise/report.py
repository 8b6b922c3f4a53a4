"""The pairwise (seed 002) report: what ``reports/pairwise.qmd`` shows, declared for the report facade.

Per-image win rates (seed 002 Tables 1–2), cohort preferences (Tables 3–4), the position-adjusted
group effect, position bias here; the Bradley–Terry strengths of the portraits in
:mod:`.report_strengths`; the ratings (per bin and mean per group, on the study's stored scale), their reliability and the models' agreement with the
human raters in :mod:`.report_ratings`. Significance in the seed 000 notation (bold p < 0.001, underlined p ≥ 0.05), computed from
the stored p-values at render time. Tables are numbered in the order ``reports/pairwise.qmd`` shows
them; every test's note names it and the trials or ratings it counts.
"""

# ruff: noqa: E501  (declared SQL reads best unwrapped)
from __future__ import annotations

from cueshift.designs.pairwise.report_ratings import RATING_TABLES
from cueshift.designs.pairwise.report_strengths import STRENGTH_FIGURES, STRENGTH_TABLES
from cueshift.render import (
    CI_LABEL,
    EMPHASIS_LEGEND,
    EMPHASIS_LEGEND_MD,
    LEVEL,
    MODELS_FILTER,
    Catalog,
    Col,
    Pivot,
    TableSpec,
    ci,
    effect,
    fmt_integer,
    fmt_percent_ci,
    fmt_pvalue,
    number,
    percent,
    stub,
)

_Q_NOTE = (
    "q (BH): Benjamini–Hochberg adjusted p within the study's pairwise.bh_family (default: every "
    "model × cohort test together, as the paper's 30)."
)

_TRIAL_TABLES: tuple[TableSpec, ...] = (
    TableSpec(
        key="pairwise_stimulus",
        title="Table 1. Per-image win rates of the target-group portraits per cohort (seed 002 Tables 1–2)",
        sql=f"""WITH t AS (SELECT DISTINCT model_id, cohort, target_group FROM result_pairwise_cohort)
            SELECT s.model_id, s.cohort, s.estimate,
                   row_number() OVER (PARTITION BY s.model_id, s.cohort ORDER BY s.image_id) AS image,
                   dense_rank() OVER (ORDER BY s.model_id) * 1000
                       + row_number() OVER (PARTITION BY s.model_id, s.cohort ORDER BY s.image_id) AS head
            FROM result_pairwise_stimulus s JOIN t USING (model_id, cohort)
            WHERE s.stimulus_group = t.target_group AND {MODELS_FILTER}
            ORDER BY s.cohort, head""",
        columns=(stub("cohort", "Cohort"),),
        pivot=Pivot(on="image", value="estimate", fmt=percent(0), spanner="model_id", order="head"),
        notes=(
            "Share of each target-group portrait's valid trials against the cohort's other-group portraits "
            "that it won; portraits numbered within the cohort.",
        ),
        notes_sql=f"""WITH t AS (SELECT DISTINCT model_id, cohort, target_group FROM result_pairwise_cohort)
            SELECT 'n: ' || min(s.n) || CASE WHEN min(s.n) < max(s.n) THEN '–' || max(s.n) ELSE '' END
                   || ' valid trials per portrait.'
            FROM result_pairwise_stimulus s JOIN t USING (model_id, cohort)
            WHERE s.stimulus_group = t.target_group AND {MODELS_FILTER} HAVING count(*) > 0""",
        requires=("result_pairwise_stimulus", "result_pairwise_cohort"),
    ),
    TableSpec(
        key="pairwise_cohort",
        title="Table 2. Trials won by the target-group portrait per cohort (seed 002 Tables 3–4)",
        sql=f"""SELECT model_id, cohort, k, n, estimate, ci_low, ci_high, odds_ratio, p, p_adj
            FROM result_pairwise_cohort WHERE {MODELS_FILTER} ORDER BY cohort, model_id""",
        columns=(
            stub("cohort", "Cohort"),
            stub("model_id", "Model"),
            Col("k", "k", fmt_integer),
            Col("n", "n", fmt_integer),
            Col("estimate", "p̂", number(2), p="p_adj"),
            Col("ci_low", f"{LEVEL} Wilson CI (%)", fmt_percent_ci, args=("ci_high",)),
            Col("odds_ratio", "OR", number(2)),
            Col("p_adj", "q (BH)", fmt_pvalue),
        ),
        notes=(
            "k of n: valid trials won by the target-group portrait; p̂ = k/n on a 0–1 scale with its "
            "Wilson interval in percent, as the paper's Tables 3–4.",
            "Exact two-sided binomial test against 0.5; OR with the study's pseudo-count rule.",
            _Q_NOTE,
            EMPHASIS_LEGEND,
        ),
        requires=("result_pairwise_cohort",),
    ),
    TableSpec(
        key="pairwise_group_effect",
        title="Table 3. Position-adjusted preference for the target group (logit, per cohort)",
        sql=f"""SELECT model_id, cohort, estimate, ci_low, ci_high, odds_ratio, position, p_adj, n
            FROM result_pairwise_group_effect WHERE {MODELS_FILTER} ORDER BY cohort, model_id""",
        columns=(
            stub("cohort", "Cohort"),
            stub("model_id", "Model"),
            Col("estimate", "β (log-odds)", effect(2), p="p_adj"),
            Col("ci_low", CI_LABEL, ci(2), args=("ci_high",)),
            Col("odds_ratio", "exp(β)", number(2)),
            Col("position", "Position h", effect(2)),
            Col("p_adj", "q (BH)", fmt_pvalue),
            Col("n", "n", fmt_integer),
        ),
        notes=(
            "Logistic regression of the left image winning, logit P = h + β (g_left − g_right) with g = 1 "
            "for a target-group portrait, over the cohort's n valid trials: β is the log-odds that the "
            "target-group portrait wins at equal position, exp(β) its odds ratio, h the log-odds of the "
            "left position. Wald interval and test (blank where the fit separates).",
            _Q_NOTE,
            EMPHASIS_LEGEND,
        ),
        requires=("result_pairwise_group_effect",),
    ),
    TableSpec(
        key="pairwise_position",
        title="Table 4. Position bias: share of trials won by the left image",
        sql=f"""SELECT model_id, k, n, estimate, ci_low, ci_high, p, consistency, n_swapped_pairs
            FROM result_pairwise_position WHERE {MODELS_FILTER} ORDER BY model_id""",
        columns=(
            stub("model_id", "Model"),
            Col("k", "k", fmt_integer),
            Col("n", "n", fmt_integer),
            Col("estimate", "P(left)", number(3), p="p"),
            Col("ci_low", CI_LABEL, ci(3, False), args=("ci_high",)),
            Col("p", "p", fmt_pvalue),
            Col("consistency", "Same winner both orders", percent(1)),
            Col("n_swapped_pairs", "Swapped pairs", fmt_integer),
        ),
        notes=(
            "P(left) = k/n: share of the valid trials won by the left image, exact two-sided binomial test "
            "against 0.5 (p unadjusted) with its Wilson interval. Same winner both orders: share of the "
            "pairs shown in both left/right orders whose winner is the same image.",
            EMPHASIS_LEGEND,
        ),
        requires=("result_pairwise_position",),
    ),
)

#: The tables in the order of the page: trials (Tables 1–3), Bradley–Terry (3b), position, ratings.
TABLES: tuple[TableSpec, ...] = (*_TRIAL_TABLES[:3], *STRENGTH_TABLES, *_TRIAL_TABLES[3:], *RATING_TABLES)

CATALOG = Catalog(
    document="pairwise.qmd", tables=TABLES, figures=STRENGTH_FIGURES, notation=EMPHASIS_LEGEND_MD
)

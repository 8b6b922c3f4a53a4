"""The paired report's attractiveness tables (seed 001 §4.1, App. D): the share of scenarios with
an attractiveness bias (Table 1) and the halo table (Table 2)."""

# ruff: noqa: E501  (declared SQL reads best unwrapped)
from __future__ import annotations

from cueshift.designs.paired.report_notes import STARS_NOTE, n_note, p_note
from cueshift.render import (
    LEVEL,
    MODELS_FILTER,
    Col,
    Notation,
    TableSpec,
    effect,
    fmt_integer,
    fmt_percent_ci,
    fmt_pvalue,
    number,
    percent,
    stub,
)

ATTRACTIVENESS_TABLES: tuple[TableSpec, ...] = (
    TableSpec(
        key="paired_share",
        title="Table 1. Scenarios with a significant attractiveness bias (seed 001 §4.1)",
        sql=f"""SELECT model_id, test, CASE WHEN level = 'all' THEN 'all scenarios' ELSE "group" END AS grp,
                   n_significant, n, estimate, ci_low, ci_high
            FROM result_paired_significance_share WHERE {MODELS_FILTER} AND level IN ('all', 'family')
            ORDER BY model_id, test, level <> 'all', grp""",
        columns=(
            stub("model_id", "Model"),
            stub("test", "Test"),
            stub("grp", "Scenarios"),
            Col("n_significant", "Significant", fmt_integer),
            Col("n", "Of", fmt_integer),
            Col("estimate", "Share", percent(1)),
            Col("ci_low", f"{LEVEL} Wilson CI (%)", fmt_percent_ci, args=("ci_high",)),
        ),
        notes=(
            "Kruskal–Wallis (the paper's, unpaired) and Wilcoxon signed-rank (paired) of s, filtered vs original.",
        ),
        notes_sql=f"""SELECT 'Significant: p < α = ' || printf('%g', max(alpha)) || ' for each scenario''s test.'
                     FROM result_paired_significance_share WHERE {MODELS_FILTER} HAVING count(*) > 0
                     UNION ALL ({p_note("model × test (over scenarios)")})""",
        requires=("result_paired_significance_share", "result_paired_attractiveness"),
    ),
    TableSpec(
        key="paired_halo",
        title="Table 2. Halo effect on the positive-first trait scenarios (seed 001 App. D Table 5)",
        sql=f"""SELECT model_id, choice_1, choice_2, gap, mean_filtered, mean_original, statistic, p_adj
            FROM result_paired_halo WHERE {MODELS_FILTER} ORDER BY model_id, statistic DESC NULLS LAST""",
        columns=(
            stub("model_id", "Model"),
            stub("choice_1", "Choice 1"),
            stub("choice_2", "Choice 2"),
            Col("gap", "Gap", effect(2)),
            Col("mean_filtered", "s filtered", number(2)),
            Col("mean_original", "s original", number(2)),
            Col("statistic", "KW H", number(2), p="p_adj", notation=Notation.STARS),
            Col("p_adj", "p", fmt_pvalue),
        ),
        notes=(
            "s: share of answers naming the first (positive) option over orderings and seeds. Gap: "
            "s filtered − s original, on the 0–1 scale of s (the paper's gap between means).",
            "Kruskal–Wallis H of s, filtered vs original images (the paper's AHE test).",
            STARS_NOTE,
        ),
        notes_sql=f"{p_note('model × test (over scenarios)')} UNION ALL ({n_note('result_paired_halo')})",
        requires=("result_paired_halo", "result_paired_attractiveness"),
    ),
)

"""The paired (seed 001) report: what ``reports/paired.qmd`` shows, declared for the report facade.

Tables over the ``result_paired_*`` tables: the share of scenarios with an attractiveness bias,
the halo table (App. D Table 5), the gender- and race-stereotyped jobs (App. E–F Tables 6–7),
Table 1 and the overlap with demographic biases. As in the paper, the Kruskal–Wallis statistic
carries the standard star notation, computed from the stored p-value (``p_adj``: adjusted only when
the study's ``[paired] correction`` is ``"bh"``) at render time; each test's note says which, and
its number of images. Tables are numbered in the order ``reports/paired.qmd`` shows them.
"""

# ruff: noqa: E501  (declared SQL reads best unwrapped)
from __future__ import annotations

from cueshift.render import (
    LEVEL,
    MODELS_FILTER,
    STARS_LEGEND,
    STARS_LEGEND_MD,
    Catalog,
    Col,
    Notation,
    Pivot,
    TableSpec,
    effect,
    fmt_integer,
    fmt_percent_ci,
    fmt_pvalue,
    number,
    percent,
    stub,
)

_STARS = f"KW H: {STARS_LEGEND}"


def _p_note(family: str) -> str:
    """Query of the note saying whether p is adjusted: the study's correction, stored per test."""
    return f"""SELECT CASE max(correction) WHEN 'bh' THEN 'p: Benjamini–Hochberg adjusted within each {family}.'
                ELSE 'p: unadjusted, as in the paper (paired.correction = "none").' END
              FROM result_paired_attractiveness HAVING count(*) > 0"""


def _n_note(table: str, where: str = "TRUE") -> str:
    """Query of the note giving the images each test compares (a range where they differ)."""
    return f"""SELECT 'n: ' || min(n) || CASE WHEN min(n) < max(n) THEN '–' || max(n) ELSE '' END
                     || ' images per test (each individual original and filtered).'
              FROM {table} WHERE {MODELS_FILTER} AND {where} HAVING count(*) > 0"""


_GENDER_JOBS = "dimension = 'gender' AND image_set = 'all' AND scenario_category = 'Gender-stereotyped jobs'"

_TABLE1_OUTCOMES = {
    "stronger in original": "Stronger in originals (F)",
    "stronger in filtered": "Stronger in filtered (F^b)",
    "no impact": "No impact",
}
_TABLE1_ORDER = ", ".join(f"('{o}', {i})" for i, o in enumerate(_TABLE1_OUTCOMES))

TABLES: tuple[TableSpec, ...] = (
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
                     UNION ALL ({_p_note("model × test (over scenarios)")})""",
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
            _STARS,
        ),
        notes_sql=f"{_p_note('model × test (over scenarios)')} UNION ALL ({_n_note('result_paired_halo')})",
        requires=("result_paired_halo", "result_paired_attractiveness"),
    ),
    TableSpec(
        key="paired_gender_jobs",
        title="Table 3. Gender bias on the gender-stereotyped jobs (seed 001 App. E Table 6)",
        sql="""WITH m AS (SELECT model_id, scenario_id,
                              max(estimate) FILTER (WHERE "group" = 'male') AS s_male,
                              max(estimate) FILTER (WHERE "group" = 'female') AS s_female
                       FROM result_paired_demographic_means
                       WHERE dimension = 'gender' AND image_set = 'all' GROUP BY ALL)
            SELECT d.model_id, d.choice_1, d.choice_2, m.s_male, m.s_female, d.statistic, d.p_adj
            FROM result_paired_demographic d JOIN m USING (model_id, scenario_id)
            WHERE list_contains($models, d.model_id) AND d.dimension = 'gender' AND d.image_set = 'all'
              AND d.scenario_category = 'Gender-stereotyped jobs'
            ORDER BY d.model_id, d.statistic DESC NULLS LAST""",
        columns=(
            stub("model_id", "Model"),
            stub("choice_1", "Job 1"),
            stub("choice_2", "Job 2"),
            Col("s_male", "s males", number(2)),
            Col("s_female", "s females", number(2)),
            Col("statistic", "KW H", number(2), p="p_adj", notation=Notation.STARS),
            Col("p_adj", "p", fmt_pvalue),
        ),
        notes=(
            "All images (original and filtered); the first option is the male-stereotyped job. "
            "Kruskal–Wallis H of s, males vs females.",
            _STARS,
        ),
        notes_sql=f"""{_p_note("model × dimension × image set")}
                      UNION ALL ({_n_note("result_paired_demographic", _GENDER_JOBS)})""",
        requires=(
            "result_paired_demographic",
            "result_paired_demographic_means",
            "result_paired_attractiveness",
        ),
    ),
    TableSpec(
        key="paired_race_jobs",
        title="Table 4. Race bias on the race-stereotyped jobs (seed 001 App. F Table 7)",
        sql=f"""SELECT model_id, choice_1 || ' (' || group_1 || ')' AS job_1, choice_2 || ' (' || group_2 || ')' AS job_2,
                   mean_1, mean_2, statistic, p_adj FROM result_paired_race_jobs WHERE {MODELS_FILTER}
            ORDER BY model_id, statistic DESC NULLS LAST""",
        columns=(
            stub("model_id", "Model"),
            stub("job_1", "Job 1"),
            stub("job_2", "Job 2"),
            Col("mean_1", "s race 1", number(2)),
            Col("mean_2", "s race 2", number(2)),
            Col("statistic", "KW H", number(2), p="p_adj", notation=Notation.STARS),
            Col("p_adj", "p", fmt_pvalue),
        ),
        notes=(
            "Images of the two races only (the subset carrying a race label). Kruskal–Wallis H "
            "of s, race 1 vs race 2.",
            _STARS,
        ),
        notes_sql=f"{_p_note('model')} UNION ALL ({_n_note('result_paired_race_jobs')})",
        requires=("result_paired_race_jobs", "result_paired_attractiveness"),
    ),
    TableSpec(
        key="paired_overlap",
        title="Table 5. Scenarios with both an attractiveness and a demographic bias (seed 001 §4.3.1)",
        sql=f"""SELECT model_id, dimension, n_attractiveness, n_demographic, n_both, estimate, n
            FROM result_paired_overlap WHERE {MODELS_FILTER} ORDER BY model_id, dimension""",
        columns=(
            stub("model_id", "Model"),
            stub("dimension", "Dimension"),
            Col("n_attractiveness", "Attractiveness", fmt_integer),
            Col("n_demographic", "Demographic", fmt_integer),
            Col("n_both", "Both", fmt_integer),
            Col("estimate", "Both / attractiveness", percent(1)),
            Col("n", "Scenarios", fmt_integer),
        ),
        notes=(
            "Scenarios whose Kruskal–Wallis test finds an attractiveness bias (filtered vs original), a "
            "demographic bias (across the dimension's groups, all images) and both.",
        ),
        notes_sql=f"""SELECT 'Significant: p < α = ' || printf('%g', max(alpha)) || '.'
                     FROM result_paired_overlap WHERE {MODELS_FILTER} HAVING count(*) > 0
                     UNION ALL ({_p_note("model × test (over scenarios)")})""",
        requires=("result_paired_overlap", "result_paired_attractiveness"),
    ),
    TableSpec(
        key="paired_table1",
        title="Table 6. Demographic bias stronger among originals or filtered images (seed 001 Table 1)",
        sql=f"""WITH o(outcome, k) AS (VALUES {_TABLE1_ORDER}),
                 d AS (SELECT model_id, dimension, max(n) AS n FROM result_paired_attractiveness_vs_demographic
                       WHERE {MODELS_FILTER} GROUP BY ALL)
            SELECT d.model_id, d.dimension, d.n, o.outcome, o.k, coalesce(r.n_scenarios, 0) AS n_scenarios
            FROM d CROSS JOIN o LEFT JOIN result_paired_attractiveness_vs_demographic r USING (model_id, dimension, outcome)
            ORDER BY d.model_id, d.dimension, o.k""",
        columns=(stub("model_id", "Model"), stub("dimension", "Bias"), Col("n", "Scenarios", fmt_integer)),
        pivot=Pivot(on="outcome", value="n_scenarios", fmt=fmt_integer, labels=_TABLE1_OUTCOMES, order="k"),
        notes=(
            "Kruskal–Wallis H across groups within the originals (F) and within the filtered images (F^b): "
            "stronger where H is larger, when either is significant; no impact: neither significant. "
            "Gender over all images, age over the FACES-like and ethnicity (the paper's race) over the "
            "CFD-like individuals.",
        ),
        notes_sql=f"""SELECT 'Significant: p < α = ' || printf('%g', max(alpha)) || '.'
                     FROM result_paired_attractiveness_vs_demographic WHERE {MODELS_FILTER} HAVING count(*) > 0
                     UNION ALL ({_p_note("model × dimension × image set")})""",
        requires=("result_paired_attractiveness_vs_demographic", "result_paired_attractiveness"),
    ),
    TableSpec(
        key="paired_strongest",
        title="Table 7. Group with the strongest attractiveness bias (seed 001 App. C, Fig. 5)",
        sql=f"""SELECT model_id, dimension, "group", n_scenarios, n FROM result_paired_strongest_group
            WHERE {MODELS_FILTER} ORDER BY model_id, dimension, n_scenarios DESC""",
        columns=(
            stub("model_id", "Model"),
            stub("dimension", "Dimension"),
            stub("group", "Group"),
            Col("n_scenarios", "Scenarios", fmt_integer),
            Col("n", "Of", fmt_integer),
        ),
        notes=(
            "Largest Kruskal–Wallis H among the groups with a significant bias; (none): no group significant.",
        ),
        notes_sql=_p_note("model × test × dimension × group (over scenarios)"),
        requires=("result_paired_strongest_group", "result_paired_attractiveness"),
    ),
)

CATALOG = Catalog(document="paired.qmd", tables=TABLES, notation=STARS_LEGEND_MD)

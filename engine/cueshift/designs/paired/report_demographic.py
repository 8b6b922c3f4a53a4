"""The paired report's demographic tables (seed 001 §4.3, App. C, E–F, Table 1): the gender- and
race-stereotyped jobs (Tables 3–4), the overlap of attractiveness and demographic bias (Table 5),
seed 001 Table 1 (Table 6) and the group with the strongest attractiveness bias (Table 7)."""

# ruff: noqa: E501  (declared SQL reads best unwrapped)
from __future__ import annotations

from cueshift.designs.paired.report_notes import STARS_NOTE, n_note, p_note
from cueshift.render import (
    MODELS_FILTER,
    Col,
    Notation,
    Pivot,
    TableSpec,
    fmt_integer,
    fmt_pvalue,
    number,
    percent,
    stub,
)

_GENDER_JOBS = "dimension = 'gender' AND image_set = 'all' AND scenario_category = 'Gender-stereotyped jobs'"

_TABLE1_OUTCOMES = {
    "stronger in original": "Stronger in originals (F)",
    "stronger in filtered": "Stronger in filtered (Fᵇ)",
    "no impact": "No impact",
}
_TABLE1_ORDER = ", ".join(f"('{o}', {i})" for i, o in enumerate(_TABLE1_OUTCOMES))

DEMOGRAPHIC_TABLES: tuple[TableSpec, ...] = (
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
            STARS_NOTE,
        ),
        notes_sql=f"""{p_note("model × dimension × image set")}
                      UNION ALL ({n_note("result_paired_demographic", _GENDER_JOBS)})""",
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
            STARS_NOTE,
        ),
        notes_sql=f"{p_note('model')} UNION ALL ({n_note('result_paired_race_jobs')})",
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
                     UNION ALL ({p_note("model × test (over scenarios)")})""",
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
            "Kruskal–Wallis H across groups within the originals (F) and within the filtered images (Fᵇ): "
            "stronger where H is larger, when either is significant; no impact: neither significant. "
            "Gender over all images, age over the FACES-like and ethnicity (the paper's race) over the "
            "CFD-like individuals.",
        ),
        notes_sql=f"""SELECT 'Significant: p < α = ' || printf('%g', max(alpha)) || '.'
                     FROM result_paired_attractiveness_vs_demographic WHERE {MODELS_FILTER} HAVING count(*) > 0
                     UNION ALL ({p_note("model × dimension × image set")})""",
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
        notes_sql=p_note("model × test × dimension × group (over scenarios)"),
        requires=("result_paired_strongest_group", "result_paired_attractiveness"),
    ),
)

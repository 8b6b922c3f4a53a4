"""The paired (seed 001) report: what ``reports/paired.qmd`` shows, declared for the report facade.

Tables over the ``result_paired_*`` tables: the share of scenarios with an attractiveness bias,
the halo table (App. D Table 5), the gender- and race-stereotyped jobs (App. E–F Tables 6–7),
Table 1 and the overlap with demographic biases. As in the paper, the Kruskal–Wallis statistic
carries the standard star notation, computed from the stored BH-adjusted p-value at render time.
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

TABLES: tuple[TableSpec, ...] = (
    TableSpec(
        key="paired_share",
        title="Scenarios with a significant attractiveness bias (seed 001 §4.1)",
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
            Col("ci_low", f"{LEVEL} Wilson CI", fmt_percent_ci, args=("ci_high",)),
        ),
        notes=(
            "Kruskal–Wallis (the paper's, unpaired) and Wilcoxon signed-rank (paired) of s, filtered vs original.",
        ),
        requires=("result_paired_significance_share",),
    ),
    TableSpec(
        key="paired_halo",
        title="Halo effect on the positive-first trait scenarios (seed 001 App. D Table 5)",
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
        notes=("s: share of answers naming the first (positive) option over orderings and seeds.", _STARS),
        requires=("result_paired_halo",),
    ),
    TableSpec(
        key="paired_gender_jobs",
        title="Gender bias on the gender-stereotyped jobs (seed 001 App. E Table 6)",
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
        notes=("All images (original and filtered); the first option is the male-stereotyped job.", _STARS),
        requires=("result_paired_demographic", "result_paired_demographic_means"),
    ),
    TableSpec(
        key="paired_race_jobs",
        title="Race bias on the race-stereotyped jobs (seed 001 App. F Table 7)",
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
        notes=("Images of the two races only (the subset carrying a race label).", _STARS),
        requires=("result_paired_race_jobs",),
    ),
    TableSpec(
        key="paired_table1",
        title="Demographic bias stronger among originals or filtered images (seed 001 Table 1)",
        sql=f"""SELECT model_id, dimension, outcome, n_scenarios FROM result_paired_attractiveness_vs_demographic
            WHERE {MODELS_FILTER} ORDER BY model_id, dimension, outcome""",
        columns=(stub("model_id", "Model"), stub("dimension", "Bias")),
        pivot=Pivot(on="outcome", value="n_scenarios", fmt=fmt_integer),
        notes=(
            "Kruskal–Wallis H across groups within the originals (F) and within the filtered images (F^b); "
            "no impact: neither significant.",
        ),
        requires=("result_paired_attractiveness_vs_demographic",),
    ),
    TableSpec(
        key="paired_overlap",
        title="Scenarios with both an attractiveness and a demographic bias (seed 001 §4.3.1)",
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
        requires=("result_paired_overlap",),
    ),
    TableSpec(
        key="paired_strongest",
        title="Group with the strongest attractiveness bias (seed 001 App. C, Fig. 5)",
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
        requires=("result_paired_strongest_group",),
    ),
)

CATALOG = Catalog(document="paired.qmd", tables=TABLES, notation=STARS_LEGEND_MD)

"""Report tables of the further designs, for ``reports/paired.qmd``, ``pairwise.qmd``, ``probe.qmd``.

The documents render through the same machinery as ``reports/study.qmd``
(``cueshift report --document reports/<design>.qmd``): each table is a declared
:class:`~cueshift.report.TableSpec` over the ``result_<design>_*`` tables, displayed as an
HTML + typst object, so the same executed cell serves the HTML and the PDF. A table whose
source is missing shows a "not computed" note. :class:`DesignReport` opens the database
itself (read-only), because a pairwise study has trials and ratings but no judgments.
"""

# ruff: noqa: E501  (declared SQL reads best unwrapped)
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import duckdb
import polars as pl

from cueshift.errors import CueshiftError
from cueshift.report import Col, Pivot, TableSpec, fmt_ci, fmt_integer, fmt_pvalue, stub
from cueshift.report._database import parse_models, relations
from cueshift.report._formats import effect, number, percent
from cueshift.report.doc import MarkdownOutput, TableOutput, not_computed

_MODELS = "list_contains($models, model_id)"
_P = "p-values: Benjamini–Hochberg adjusted where the design says so (p_adj); **bold** p < 0.001, underlined: not significant."


def _ci(decimals: int = 3, signed: bool = True):  # type: ignore[no-untyped-def]
    return lambda lo, hi: fmt_ci(lo, hi, decimals, signed)


def _pct_ci(lo: object, hi: object) -> str:
    if lo is None or hi is None:
        return "–"
    return f"[{100 * float(lo):.0f}–{100 * float(hi):.0f}]"  # type: ignore[arg-type]


TABLES: dict[str, TableSpec] = {
    spec.key: spec
    for spec in (
        # ------------------------------------------------------------------ paired (seed 001)
        TableSpec(
            key="paired_share",
            title="Scenarios with a significant attractiveness bias (seed 001 §4.1)",
            sql=f"""SELECT model_id, test, CASE WHEN level = 'all' THEN 'all scenarios' ELSE "group" END AS grp,
                       n_significant, n, estimate, ci_low, ci_high
                FROM result_paired_significance_share WHERE {_MODELS} AND level IN ('all', 'family')
                ORDER BY model_id, test, level <> 'all', grp""",
            columns=(
                stub("model_id", "Model"),
                stub("test", "Test"),
                stub("grp", "Scenarios"),
                Col("n_significant", "Significant", fmt_integer),
                Col("n", "Of", fmt_integer),
                Col("estimate", "Share", percent(1)),
                Col("ci_low", "95% Wilson CI", _pct_ci, args=("ci_high",)),
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
                FROM result_paired_halo WHERE {_MODELS} ORDER BY model_id, statistic DESC NULLS LAST""",
            columns=(
                stub("model_id", "Model"),
                stub("choice_1", "Choice 1"),
                stub("choice_2", "Choice 2"),
                Col("gap", "Gap", effect(2), p="p_adj"),
                Col("mean_filtered", "s filtered", number(2)),
                Col("mean_original", "s original", number(2)),
                Col("statistic", "KW H", number(2)),
                Col("p_adj", "p", fmt_pvalue),
            ),
            notes=("s: share of answers naming the first (positive) option over orderings and seeds.", _P),
            requires=("result_paired_halo",),
        ),
        TableSpec(
            key="paired_gender_jobs",
            title="Gender bias on the gender-stereotyped jobs (seed 001 App. E Table 6)",
            sql=f"""WITH m AS (SELECT model_id, scenario_id,
                                  max(estimate) FILTER (WHERE "group" = 'male') AS s_male,
                                  max(estimate) FILTER (WHERE "group" = 'female') AS s_female
                           FROM result_paired_demographic_means
                           WHERE dimension = 'gender' AND image_set = 'all' GROUP BY ALL)
                SELECT d.model_id, d.choice_1, d.choice_2, m.s_male, m.s_female, d.statistic, d.p_adj
                FROM result_paired_demographic d JOIN m USING (model_id, scenario_id)
                WHERE {_MODELS.replace("model_id", "d.model_id")} AND d.dimension = 'gender' AND d.image_set = 'all'
                  AND d.scenario_category = 'Gender-stereotyped jobs'
                ORDER BY d.model_id, d.statistic DESC NULLS LAST""",
            columns=(
                stub("model_id", "Model"),
                stub("choice_1", "Job 1"),
                stub("choice_2", "Job 2"),
                Col("s_male", "s males", number(2)),
                Col("s_female", "s females", number(2)),
                Col("statistic", "KW H", number(2), p="p_adj"),
                Col("p_adj", "p", fmt_pvalue),
            ),
            notes=("All images (original and filtered); the first option is the male-stereotyped job.", _P),
            requires=("result_paired_demographic", "result_paired_demographic_means"),
        ),
        TableSpec(
            key="paired_race_jobs",
            title="Race bias on the race-stereotyped jobs (seed 001 App. F Table 7)",
            sql=f"""SELECT model_id, choice_1 || ' (' || group_1 || ')' AS job_1, choice_2 || ' (' || group_2 || ')' AS job_2,
                       mean_1, mean_2, statistic, p_adj FROM result_paired_race_jobs WHERE {_MODELS}
                ORDER BY model_id, statistic DESC NULLS LAST""",
            columns=(
                stub("model_id", "Model"),
                stub("job_1", "Job 1"),
                stub("job_2", "Job 2"),
                Col("mean_1", "s race 1", number(2)),
                Col("mean_2", "s race 2", number(2)),
                Col("statistic", "KW H", number(2), p="p_adj"),
                Col("p_adj", "p", fmt_pvalue),
            ),
            notes=("Images of the two races only (the subset carrying a race label).", _P),
            requires=("result_paired_race_jobs",),
        ),
        TableSpec(
            key="paired_table1",
            title="Demographic bias stronger among originals or filtered images (seed 001 Table 1)",
            sql=f"""SELECT model_id, dimension, outcome, n_scenarios FROM result_paired_attractiveness_vs_demographic
                WHERE {_MODELS} ORDER BY model_id, dimension, outcome""",
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
                FROM result_paired_overlap WHERE {_MODELS} ORDER BY model_id, dimension""",
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
                WHERE {_MODELS} ORDER BY model_id, dimension, n_scenarios DESC""",
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
        # ------------------------------------------------------------------ pairwise (seed 002)
        TableSpec(
            key="pairwise_cohort",
            title="Trials won by the target-group portrait per cohort (seed 002 Tables 3–4)",
            sql=f"""SELECT model_id, cohort, k, n, estimate, ci_low, ci_high, odds_ratio, p_value, p_adj
                FROM result_pairwise_cohort WHERE {_MODELS} ORDER BY cohort, model_id""",
            columns=(
                stub("cohort", "Cohort"),
                stub("model_id", "Model"),
                Col("k", "k", fmt_integer),
                Col("n", "n", fmt_integer),
                Col("estimate", "p̂", number(2), p="p_adj"),
                Col("ci_low", "95% Wilson CI (%)", _pct_ci, args=("ci_high",)),
                Col("odds_ratio", "OR", number(2)),
                Col("p_adj", "q (BH)", fmt_pvalue),
            ),
            notes=("Exact two-sided binomial test against 0.5; OR with the study's pseudo-count rule.", _P),
            requires=("result_pairwise_cohort",),
        ),
        TableSpec(
            key="pairwise_position",
            title="Position bias: share of trials won by the left image",
            sql=f"""SELECT model_id, k, n, estimate, ci_low, ci_high, p_value, consistency, n_swapped_pairs
                FROM result_pairwise_position WHERE {_MODELS} ORDER BY model_id""",
            columns=(
                stub("model_id", "Model"),
                Col("estimate", "P(left)", number(3), p="p_value"),
                Col("ci_low", "95% CI", _ci(3, False), args=("ci_high",)),
                Col("p_value", "p", fmt_pvalue),
                Col("consistency", "Same winner both orders", percent(1)),
                Col("n_swapped_pairs", "Swapped pairs", fmt_integer),
            ),
            requires=("result_pairwise_position",),
        ),
        TableSpec(
            key="pairwise_group_effect",
            title="Position-adjusted preference for the target group (logit, per cohort)",
            sql=f"""SELECT model_id, cohort, estimate, ci_low, ci_high, odds_ratio, position, p_adj
                FROM result_pairwise_group_effect WHERE {_MODELS} ORDER BY cohort, model_id""",
            columns=(
                stub("cohort", "Cohort"),
                stub("model_id", "Model"),
                Col("estimate", "β (log-odds)", effect(2), p="p_adj"),
                Col("ci_low", "95% CI", _ci(2), args=("ci_high",)),
                Col("odds_ratio", "exp(β)", number(2)),
                Col("position", "Position h", effect(2)),
                Col("p_adj", "p (BH)", fmt_pvalue),
            ),
            requires=("result_pairwise_group_effect",),
        ),
        TableSpec(
            key="pairwise_rating_bins",
            title="0–10 ratings per bin (seed 002 Fig. 6)",
            sql="""SELECT rater, cohort, bin, bin_order, estimate FROM result_pairwise_rating_bins
               ORDER BY rater = '(humans)' DESC, rater, cohort, bin_order""",
            columns=(stub("rater", "Rater"), stub("cohort", "Cohort")),
            pivot=Pivot(on="bin", value="estimate", fmt=percent(0), order="bin_order"),
            requires=("result_pairwise_rating_bins",),
        ),
        TableSpec(
            key="pairwise_rating_reliability",
            title="Inter-rater reliability of the human ratings (Krippendorff's α)",
            sql="SELECT attribute, level, estimate, n_units, n_raters, n FROM result_pairwise_rating_reliability",
            columns=(
                stub("attribute", "Attribute"),
                stub("level", "Metric"),
                Col("estimate", "α", number(3)),
                Col("n_units", "Images", fmt_integer),
                Col("n_raters", "Raters", fmt_integer),
                Col("n", "Ratings", fmt_integer),
            ),
            requires=("result_pairwise_rating_reliability",),
        ),
        # ------------------------------------------------------------------ probe (seed 004)
        TableSpec(
            key="probe_reliability",
            title="Human reliability per attribute: split-half (Spearman–Brown) and Krippendorff's α",
            sql="""SELECT attribute, estimate, split_low, split_high, alpha_interval, alpha_ordinal, n_raters, n
               FROM result_probe_reliability ORDER BY estimate DESC NULLS LAST""",
            columns=(
                stub("attribute", "Attribute"),
                Col("estimate", "Split-half (SB)", number(3)),
                Col("split_low", "Splits 2.5–97.5%", _ci(3, False), args=("split_high",)),
                Col("alpha_interval", "α interval", number(3)),
                Col("alpha_ordinal", "α ordinal", number(3)),
                Col("n_raters", "Raters", fmt_integer),
                Col("n", "Stimuli", fmt_integer),
            ),
            requires=("result_probe_reliability",),
        ),
        TableSpec(
            key="probe_similarity",
            title="Model–human similarity ρ per attribute (seed 004 Eq. 4, Table 1)",
            sql=f"""SELECT attribute, model_id, estimate, p_adj,
                       avg(estimate) OVER (PARTITION BY attribute) AS mean_rho
                FROM result_probe_similarity WHERE {_MODELS} ORDER BY mean_rho DESC, attribute, model_id""",
            columns=(stub("attribute", "Attribute"),),
            pivot=Pivot(on="model_id", value="estimate", fmt=number(2), p="p_adj"),
            notes=(
                "Spearman ρ between the model's scores and the human means over the stimuli; BH over attributes "
                "per model.",
                _P,
            ),
            requires=("result_probe_similarity",),
        ),
        TableSpec(
            key="probe_reliability_similarity",
            title="Reliability predicts model–human similarity (seed 004 Fig. 3–4)",
            sql="""SELECT level, name, estimate, ci_low, ci_high, p_value, n, test
               FROM result_probe_reliability_similarity ORDER BY level DESC, name""",
            columns=(
                stub("level", "Level"),
                stub("name", "Model / family"),
                Col("estimate", "Correlation", number(2), p="p_value"),
                Col("ci_low", "95% CI", _ci(2), args=("ci_high",)),
                Col("p_value", "p", fmt_pvalue),
                Col("n", "Attributes", fmt_integer),
                Col("test", "Method", align="left"),
            ),
            requires=("result_probe_reliability_similarity",),
        ),
        TableSpec(
            key="probe_structure",
            title="Structure of impressions: model vs human correlation matrices",
            sql=f"""SELECT model_id, estimate, adjusted_rand, n_attributes, n_clusters FROM result_probe_structure
                WHERE {_MODELS} ORDER BY estimate DESC""",
            columns=(
                stub("model_id", "Model"),
                Col("estimate", "Normalised Frobenius", number(3)),
                Col("adjusted_rand", "ARI of Ward clusters", number(2)),
                Col("n_attributes", "Attributes", fmt_integer),
                Col("n_clusters", "Clusters", fmt_integer),
            ),
            requires=("result_probe_structure",),
        ),
        TableSpec(
            key="probe_scale_regression",
            title="Similarity regressed on reliability and scale (seed 004 Table 2)",
            sql="""SELECT term, estimate, ci_low, ci_high, statistic, p_value, adj_r2, f_statistic, n, df_resid
               FROM result_probe_scale_regression""",
            columns=(
                stub("term", "Term"),
                Col("estimate", "Coef", number(4), p="p_value"),
                Col("ci_low", "95% CI", _ci(3), args=("ci_high",)),
                Col("statistic", "t", number(3)),
                Col("p_value", "p", fmt_pvalue),
            ),
            notes_sql="""SELECT 'Adj. R² = ' || printf('%.3f', max(adj_r2)) || ', F = ' || printf('%.1f', max(f_statistic))
                            || ', N = ' || max(n) || ', residual df = ' || max(df_resid)::INT || '; predictors outside '
                            || '(0, 1) divided by their maximum.' FROM result_probe_scale_regression""",
            requires=("result_probe_scale_regression",),
        ),
    )
}


class DesignReport:
    """A study database opened read-only for a design report (no judgments required)."""

    def __init__(self, con: duckdb.DuckDBPyConnection, path: Path, models: list[str]) -> None:
        self.con = con
        self.path = path
        self.models = models
        self._relations = relations(con)

    @classmethod
    def open(cls, db: str | Path, models: str | Sequence[str] | None = None) -> DesignReport:
        path = Path(db)
        if not path.is_file():
            raise CueshiftError(f"{path}: no such study database (run `cueshift infer` first)")
        con = duckdb.connect(str(path), read_only=True)
        available = [r[0] for r in con.execute("SELECT model_id FROM model ORDER BY model_id").fetchall()]
        wanted = parse_models(models)
        unknown = [m for m in wanted if m not in available]
        if unknown:
            con.close()
            raise CueshiftError(
                f"--models: unknown model(s) {', '.join(unknown)}; the database has {', '.join(available)}"
            )
        return cls(con, path, [m for m in available if m in wanted] if wanted else available)

    def table(self, key: str) -> TableOutput | MarkdownOutput:
        spec = TABLES[key]
        gone = [t for t in spec.requires if t not in self._relations]
        if gone:
            return not_computed(f"“{spec.title}”", gone)
        styled = spec.render(self.con, {"models": self.models})
        if styled.n_rows == 0:
            return MarkdownOutput(f"> **{spec.title}:** no rows for the models of this report.\n")
        return TableOutput(styled)

    def value(self, sql: str) -> object:
        rows = self.con.execute(sql).fetchall()
        return rows[0][0] if rows else None

    def frame(self, sql: str) -> pl.DataFrame:
        return self.con.sql(sql).pl()

    def md(self, text: str) -> MarkdownOutput:
        return MarkdownOutput(text)

    def preamble(self) -> MarkdownOutput:
        simulated = [
            r[0]
            for r in self.con.execute(
                "SELECT model_id FROM model WHERE backend LIKE 'simulated%' ORDER BY model_id"
            ).fetchall()
            if r[0] in self.models
        ]
        lines = [f"Study database: `{self.path.name}`. Models: {', '.join(f'`{m}`' for m in self.models)}."]
        if simulated:
            lines.append(
                "> **Simulated judges.** "
                + ", ".join(f"`{m}`" for m in simulated)
                + " are seeded generative "
                "judges with planted effects: the numbers test the pipeline and the statistics and say "
                "nothing about any real model."
            )
        lines.append("Every number is read from the database at render time.")
        return MarkdownOutput("\n\n".join(lines) + "\n")

    def close(self) -> None:
        self.con.close()

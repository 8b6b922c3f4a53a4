"""The RQ1–RQ3 tables, read from the statistics engine's ``result_*`` tables (``cueshift analyze``).

Nothing here recomputes a statistic: each query selects stored estimates, intervals and
(BH-adjusted) p-values and lays them out; the formatters round for display only.
Rows pooled over models (``(pooled)``) and averages over models (``(mean of models)``) are
the engine's, computed over every model it analyzed; a model subset filters per-model rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from cueshift.images.labels import AGES, BODY_TYPES, DEMOGRAPHIC_FIELDS, ETHNICITIES, GENDERS
from cueshift.report._formats import (
    NOT_APPLICABLE_FILL,
    Formatter,
    delta_fill,
    effect,
    fmt_ci,
    fmt_effect,
    fmt_integer,
    fmt_number,
    fmt_pvalue,
    fmt_pvalue_sci,
    fmt_text,
    number,
    percent,
)
from cueshift.report._spec import Col, Pivot, TableSpec, stub
from cueshift.study.scenarios import SCENARIO_CATEGORIES
from cueshift.study.variations import FEATURES

#: ``model_id`` of rows pooled over models (``cueshift.stats.POOLED``).
POOLED = "(pooled)"
#: ``model_id`` of rows averaging the per-model rows (``cueshift.stats.MEAN_OF_MODELS``).
MEAN_OF_MODELS = "(mean of models)"
#: ``group`` of Table 3 rows that average a dimension's groups.
MEAN_OF_GROUPS = "(mean of groups)"
AVERAGE_LABEL = "Average (all models)"

DIMENSION_LABELS: Mapping[str, str] = {
    "age": "Age",
    "gender": "Gender",
    "ethnicity": "Ethnicity",
    "body_type": "Body type",
}
GROUP_ABBREVIATIONS: Mapping[str, str] = {
    "young adult": "YA",
    "middle-aged adult": "MA",
    "elderly": "EL",
    "male": "M",
    "female": "F",
    "Asian": "As",
    "African": "Af",
    "European": "Eu",
    "Middle Eastern": "ME",
    "Latino": "La",
    "thin": "Th",
    "normal": "No",
    "obese": "Ob",
}
GROUPS: tuple[str, ...] = (*AGES, *GENDERS, *ETHNICITIES, *BODY_TYPES)
CATEGORIES: tuple[str, ...] = tuple(dict.fromkeys(f.category for f in FEATURES))

NOTATION = (
    "Bold: p < 0.001; underlined: not significant (p ≥ 0.05); otherwise p < 0.05 "
    "(BH-adjusted p-values as stored by the engine)."
)
ABBREVIATIONS = (
    "YA = young adult, MA = middle-aged adult, EL = elderly; M = male, F = female; As = Asian, "
    "Af = African, Eu = European, ME = Middle Eastern, La = Latino; Th = thin, No = normal, "
    "Ob = obese. Grey: variation not applicable to the group (no faces)."
)


def _sql_list(values: Sequence[str]) -> str:
    return "[" + ", ".join("'" + v.replace("'", "''") + "'" for v in values) + "]"


def _position(column: str, values: Sequence[str]) -> str:
    """SQL: 1-based position of ``column`` in ``values`` (unknown values sort last)."""
    return f"coalesce(list_position({_sql_list(values)}, {column}), 1000)"


def _case(column: str, labels: Mapping[str, str]) -> str:
    whens = " ".join(f"WHEN '{k}' THEN '{v}'" for k, v in labels.items())
    return f"CASE {column} {whens} ELSE {column} END"


_DIM_POS = _position("dimension", DEMOGRAPHIC_FIELDS)
_MODEL_ROWS = f"(list_contains($models, model_id) OR model_id = '{MEAN_OF_MODELS}')"
_MODEL_LABEL = f"CASE WHEN model_id = '{MEAN_OF_MODELS}' THEN '{AVERAGE_LABEL}' ELSE model_id END"
_MODEL_ORDER = f"model_id = '{MEAN_OF_MODELS}', model_id"


def _dimension_pivot(value: str, fmt: Formatter, p: str | None = None) -> Pivot:
    return Pivot(on="dimension", value=value, fmt=fmt, p=p, labels=DIMENSION_LABELS, order="col_pos")


def _model_dimension_sql(table: str) -> str:
    """The ``estimate`` of each model (listed ones and the mean of models) × demographic
    dimension of ``table``, in model order and dimension position, for :func:`_dimension_pivot`."""
    return f"""
    SELECT {_MODEL_LABEL} AS model, dimension, {_DIM_POS} AS col_pos, estimate
    FROM {table} WHERE {_MODEL_ROWS}
    ORDER BY {_MODEL_ORDER}, col_pos
    """


TABLE2_VS = TableSpec(
    key="table2_vs",
    title="Table 2. Variation Strength (VS) per model and demographic dimension",
    sql=_model_dimension_sql("result_table2_vs"),
    columns=(stub("model", "Model"),),
    pivot=_dimension_pivot("estimate", number(3)),
    notes=(
        "VS (Eq. 3): mean over scenarios of the standard deviation across a dimension's groups of the "
        "group-mean base-face φ; 0 ≤ VS ≤ 0.5.",
    ),
    notes_sql="""
    SELECT 'Groups per dimension: ' || string_agg(dimension || ' ' || n_groups, ', ' ORDER BY dimension)
           || '; scenarios: ' || max(n) || '; standard deviation with ddof = ' || max(ddof) || '.'
    FROM (SELECT dimension, max(n_groups) AS n_groups, max(n) AS n, max(ddof) AS ddof
          FROM result_table2_vs GROUP BY dimension)
    """,
    requires=("result_table2_vs",),
)

TABLE9_SIGNIFICANT = TableSpec(
    key="table9_significant",
    title="Table 9. Share of scenarios with a significant demographic difference",
    sql=_model_dimension_sql("result_table9"),
    columns=(stub("model", "Model"),),
    pivot=_dimension_pivot("estimate", percent(0)),
    notes_sql="""
    SELECT 'Tests on base-face φ per scenario: '
           || string_agg(test || ' (' || dims || ')', ', ' ORDER BY test)
           || '; BH within model × dimension; α = ' || max(alpha) || '; ' || max(n) || ' scenarios.'
    FROM (SELECT test, string_agg(DISTINCT dimension, ', ' ORDER BY dimension) AS dims,
                 max(alpha) AS alpha, max(n) AS n
          FROM result_table9 WHERE model_id <> '(mean of models)' GROUP BY test)
    """,
    requires=("result_table9",),
)

TABLE10_ETA = TableSpec(
    key="table10_eta",
    title="Table 10. Partial η² of the key factors: mixed model and face-level ANOVAs",
    sql=f"""
    SELECT * FROM (
      SELECT 'Mixed model (random intercept per face), Δ per face × variation × scenario category'
               AS estimator, 1 AS g,
             CASE term WHEN 'variation_category' THEN 'Variation category'
                       ELSE 'Scenario category' END AS factor,
             CASE term WHEN 'variation_category' THEN 1 ELSE 2 END AS pos,
             df, statistic, estimate, p_value
      FROM result_mixed_model WHERE test = 'wald-F'
      UNION ALL
      SELECT CASE outcome WHEN 'delta' THEN 'One-way ANOVA, face-level mean Δ'
                          ELSE 'One-way ANOVA, face-level mean base φ' END,
             CASE outcome WHEN 'delta' THEN 2 ELSE 3 END,
             {_case("dimension", DIMENSION_LABELS)}, {_DIM_POS}, df, statistic, estimate, p_value
      FROM result_face_anova
    ) ORDER BY g, pos
    """,
    columns=(
        stub("factor", "Factor"),
        Col("df", "df", lambda v: fmt_number(v, 0)),
        Col("statistic", "F", number(2)),
        Col("estimate", "η²p", number(3), p="p_value"),
        Col("p_value", "p", fmt_pvalue),
    ),
    group="estimator",
    notes=("df: factor levels − 1. Pooled over models (the engine fits these on every analyzed model).",),
    notes_sql="""
    SELECT 'Mixed model: R²m = ' || printf('%.3f', max(estimate) FILTER (WHERE term = 'R2_marginal'))
           || ', R²c = ' || printf('%.3f', max(estimate) FILTER (WHERE term = 'R2_conditional'))
           || ' (Nakagawa); N = ' || printf('%,d', max(n)) || ' observations, '
           || printf('%,d', max(n_groups))
           || ' faces; ' || CASE WHEN bool_and(reml) THEN 'REML' ELSE 'ML' END || '.'
           || CASE WHEN bool_and(converged) THEN '' ELSE ' WARNING: the fit did not converge.' END
    FROM result_mixed_model HAVING count(*) > 0
    UNION ALL
    SELECT 'ANOVAs: n = ' || printf('%,d', max(n)) || ' faces.' FROM result_face_anova HAVING count(*) > 0
    """,
    requires=("result_mixed_model", "result_face_anova"),
)

TABLE3_CATEGORY = TableSpec(
    key="table3_category",
    title="Table 3. SBS per attribute category and demographic dimension",
    sql=f"""
    SELECT variation_category, dimension, {_DIM_POS} AS col_pos, estimate, p_adj
    FROM result_table3 WHERE "group" = '{MEAN_OF_GROUPS}'
    ORDER BY avg(estimate) OVER (PARTITION BY variation_category) DESC, variation_category, col_pos
    """,
    columns=(stub("variation_category", "Category"),),
    pivot=_dimension_pivot("estimate", effect(3), p="p_adj"),
    notes=(
        "Each cell: mean over the dimension's groups of the group SBS (face-level mean Δ), pooled over "
        "models; test: WSRT on per-face mean Δ. Per-group values: Table 11 (values) and result_table3.",
        NOTATION,
    ),
    requires=("result_table3",),
)

_AGE_COLUMNS = {"young adult": "Young", "middle-aged adult": "Middle-aged", "elderly": "Elderly"}

TABLE4_FASHION_AGE = TableSpec(
    key="table4_fashion_age",
    title="Table 4. SBS per fashion style across age groups; elderly − young contrast",
    sql=f"""
    SELECT variation_value, "group",
           coalesce(list_position({_sql_list(list(_AGE_COLUMNS))}, "group"), 4) AS col_pos,
           estimate, p_adj
    FROM result_table4
    ORDER BY max(estimate) FILTER (WHERE "group" = 'young adult') OVER (PARTITION BY variation_value) DESC,
             variation_value, col_pos
    """,
    columns=(stub("variation_value", "Style"),),
    pivot=Pivot(
        on="group",
        value="estimate",
        fmt=effect(3),
        p="p_adj",
        order="col_pos",
        labels={**_AGE_COLUMNS, "elderly - young adult": "E − Y"},
    ),
    notes=(
        "Age cells: WSRT on per-face mean Δ (BH over cells); E − Y: difference of the elderly and young "
        "SBS with a Mann–Whitney U test of their per-face means (BH over styles). Pooled over models.",
        NOTATION,
    ),
    requires=("result_table4",),
)

ASYMMETRY = TableSpec(
    key="negativity_asymmetry",
    title="Table S9. Negativity asymmetry: unfavorable vs favorable cues of the same kind (§5.2)",
    sql="""
    SELECT negative_value, positive_value, median_abs_negative, median_abs_positive, estimate,
           p_value, p_adj, n
    FROM result_negativity_asymmetry ORDER BY estimate DESC NULLS LAST
    """,
    columns=(
        stub("negative_value", "Unfavorable cue"),
        Col("positive_value", "Favorable counterpart", align="left"),
        Col("median_abs_negative", "Median |SBS| unfav.", number(3)),
        Col("median_abs_positive", "Median |SBS| fav.", number(3)),
        Col("estimate", "Ratio", lambda v: "–" if v is None else f"{fmt_number(v, 2)}×", p="p_adj"),
        Col("p_adj", "p (BH)", fmt_pvalue_sci),
        Col("n", "Faces", fmt_integer),
    ),
    notes=(
        "Median over faces of the per-face |SBS| of each cue; one-sided WSRT that the unfavorable cue "
        "moves judgments more than its counterpart, BH over the pairs. Pooled over models.",
        NOTATION,
    ),
    requires=("result_negativity_asymmetry",),
)

_GROUP_POS = _position('"group"', GROUPS)

TABLE11_DEMOGRAPHIC = TableSpec(
    key="table11_demographic",
    title="Table 11. Mean prediction shift Δ per variation and demographic group",
    sql=f"""
    SELECT variation_category, variation_value, dimension, "group",
           {_DIM_POS} * 100 + {_GROUP_POS} AS col_pos, estimate, p_adj
    FROM result_table11
    ORDER BY {_position("variation_category", CATEGORIES)}, variation_category, variation_value, col_pos
    """,
    columns=(stub("variation_value", "Variation"),),
    group="variation_category",
    pivot=Pivot(
        on="group",
        value="estimate",
        fmt=effect(3),
        p="p_adj",
        fill=delta_fill,
        spanner="dimension",
        labels=GROUP_ABBREVIATIONS,
        spanner_labels=DIMENSION_LABELS,
        missing_fill=NOT_APPLICABLE_FILL,
        order="col_pos",
    ),
    notes=(
        "Colour: strong positive Δ ≥ +0.10, moderate positive +0.04 ≤ Δ < +0.10, neutral |Δ| < 0.04, "
        "moderate negative −0.10 < Δ ≤ −0.04, strong negative Δ ≤ −0.10. Face-level WSRT, BH over all cells; "
        "pooled over models and scenarios.",
        NOTATION,
        ABBREVIATIONS,
    ),
    requires=("result_table11",),
)

TABLE5_MODELS = TableSpec(
    key="table5_models",
    title="Table 5. Per-model variation effects",
    sql=f"""
    SELECT {_MODEL_LABEL} AS model, estimate, ci_low, ci_high, cohens_d, zero_share, large_share, n, n_obs
    FROM result_table5 WHERE {_MODEL_ROWS}
    ORDER BY {_MODEL_ORDER}
    """,
    columns=(
        stub("model", "Model"),
        Col("estimate", "SBS", effect(4)),
        Col("ci_low", "95% CI", lambda lo, hi: fmt_ci(lo, hi, 4), args=("ci_high",)),
        Col("cohens_d", "Cohen's d", effect(3)),
        Col("zero_share", "Zero", number(3)),
        Col("large_share", "Large |Δ|", number(3)),
        Col("n", "Faces", fmt_integer),
    ),
    notes=(
        "SBS and Cohen's d (d_z of per-face mean Δ) are face-level; CI: face-level bootstrap. "
        "Zero: share of Δ = 0; Large: share of |Δ| at or above the threshold below.",
    ),
    notes_sql="SELECT 'Large shift threshold: |Δ| ≥ ' || max(large_threshold) || '.' FROM result_table5",
    requires=("result_table5",),
)

CATEGORY_RANKING = TableSpec(
    key="category_ranking",
    title="Table S10. Mean |SBS| per scenario category and model; category-ranking reversals (§5.3)",
    sql=f"""
    SELECT CASE WHEN model_id = '{POOLED}' THEN 'Pooled (all models)' ELSE model_id END AS model,
           scenario_category, abs_sbs, n_adjacent_reversals,
           min(rank) FILTER (WHERE model_id = '{POOLED}') OVER (PARTITION BY scenario_category) AS col_pos
    FROM result_category_ranking
    WHERE list_contains($models, model_id) OR model_id = '{POOLED}'
    ORDER BY model_id = '{POOLED}', model_id, col_pos
    """,
    columns=(stub("model", "Model"), Col("n_adjacent_reversals", "Adjacent reversals", fmt_integer)),
    pivot=Pivot(on="scenario_category", value="abs_sbs", fmt=number(3), order="col_pos"),
    notes=(
        "Columns in the pooled ranking's order (highest mean |SBS| first); adjacent reversals: adjacent "
        "category pairs a model orders differently from the pooled ranking.",
    ),
    requires=("result_category_ranking",),
)

CROSS_MODEL = TableSpec(
    key="cross_model",
    title="Table S11. Agreement between models: per-scenario SBS of model pairs (Fig. 5)",
    sql="""
    SELECT model_a || ' vs ' || model_b AS pair, estimate, ci_low, ci_high, p_value, slope, slope_reverse,
           n_sign_reversed, CASE WHEN category_ranking_preserved THEN 'yes' ELSE 'no' END AS ranking, n
    FROM result_cross_model
    WHERE list_contains($models, model_a) AND list_contains($models, model_b)
    ORDER BY model_a, model_b
    """,
    columns=(
        stub("pair", "Models (x vs y)"),
        Col("estimate", "Pearson r", effect(2), p="p_value"),
        Col("ci_low", "95% CI", lambda lo, hi: fmt_ci(lo, hi, 2), args=("ci_high",)),
        Col("slope", "Slope y~x", number(2)),
        Col("slope_reverse", "Slope x~y", number(2)),
        Col("n_sign_reversed", "Sign-reversed scenarios", fmt_integer),
        Col("ranking", "Category ranking kept", fmt_text, align="center"),
        Col("n", "Scenarios", fmt_integer),
    ),
    notes=("r marks use the unadjusted p-value of the correlation test.",),
    requires=("result_cross_model",),
    empty="needs at least two models in the report.",
)

PROVENANCE = TableSpec(
    key="provenance",
    title="Table S12. Analysis provenance: the result tables this report reads",
    sql="""
    SELECT "table", description, n_rows, n_resamples, seed, test, ci_method, models, schema_version,
           created_at
    FROM result_manifest ORDER BY "table"
    """,
    columns=(
        stub("table", "Table"),
        Col("description", "What", align="left"),
        Col("n_rows", "Rows", fmt_integer),
        Col("n_resamples", "Resamples", fmt_integer),
        Col("seed", "Seed", fmt_text),
        Col("test", "Tests", align="left"),
        Col("ci_method", "CI", align="left"),
        Col("models", "Models", align="left"),
        Col("created_at", "Computed", align="left"),
    ),
    requires=("result_manifest",),
)

RESULT_TABLES: tuple[TableSpec, ...] = (
    TABLE2_VS,
    TABLE9_SIGNIFICANT,
    TABLE10_ETA,
    TABLE3_CATEGORY,
    TABLE4_FASHION_AGE,
    ASYMMETRY,
    TABLE11_DEMOGRAPHIC,
    TABLE5_MODELS,
    CATEGORY_RANKING,
    CROSS_MODEL,
    PROVENANCE,
)

__all__ = ["MEAN_OF_MODELS", "POOLED", "RESULT_TABLES", "SCENARIO_CATEGORIES", "fmt_effect"]

"""StylisticBias report, RQ3: effects across models and scenarios (Table 5, S4, S5) and provenance (S18).

Rows pooled over models (``(pooled)``) and averages over models (``(mean of models)``) are the
engine's, computed over every model it analyzed; a model subset filters per-model rows.
"""

from __future__ import annotations

from cueshift.designs.stylisticbias.method_names import CI_METHOD
from cueshift.designs.stylisticbias.report.labels import MODEL_LABEL, MODEL_ORDER, MODEL_ROWS
from cueshift.render import CI_LABEL, Col, Pivot, TableSpec, ci, effect, fmt_integer, fmt_text, number, stub
from cueshift.stats import POOLED

TABLE5_MODELS = TableSpec(
    key="table5_models",
    title="Table 5. Per-model variation effects",
    sql=f"""
    SELECT {MODEL_LABEL} AS model, estimate, ci_low, ci_high, cohens_d, zero_share, large_share, n, n_obs
    FROM result_table5 WHERE {MODEL_ROWS}
    ORDER BY {MODEL_ORDER}
    """,
    columns=(
        stub("model", "Model"),
        Col("estimate", "SBS", effect(4)),
        Col("ci_low", CI_LABEL, ci(4), args=("ci_high",)),
        Col("cohens_d", "Cohen's d", effect(3)),
        Col("zero_share", "Zero", number(3)),
        Col("large_share", "Large |Δ|", number(3)),
        Col("n", "Faces", fmt_integer),
    ),
    notes=(
        f"SBS and Cohen's d (d_z of per-face mean Δ) are face-level; CI: face-level {CI_METHOD} bootstrap. "
        "Zero: share of Δ = 0; Large: share of |Δ| at or above the threshold below.",
    ),
    notes_sql="SELECT 'Large shift threshold: |Δ| ≥ ' || max(large_threshold) || '.' FROM result_table5",
    requires=("result_table5",),
)

CATEGORY_RANKING = TableSpec(
    key="category_ranking",
    title="Table S4. Mean |SBS| per scenario category and model; category-ranking reversals (§5.3)",
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
    title="Table S5. Agreement between models: per-scenario SBS of model pairs (Fig. 5)",
    sql="""
    SELECT model_a || ' vs ' || model_b AS pair, estimate, ci_low, ci_high, p, slope, slope_reverse,
           n_sign_reversed, n_reversed_significant,
           CASE WHEN category_ranking_preserved THEN 'yes' ELSE 'no' END AS ranking, n
    FROM result_cross_model
    WHERE list_contains($models, model_a) AND list_contains($models, model_b)
    ORDER BY model_a, model_b
    """,
    columns=(
        stub("pair", "Models (x vs y)"),
        Col("estimate", "Pearson r", effect(2), p="p"),
        Col("ci_low", CI_LABEL, ci(2), args=("ci_high",)),
        Col("slope", "Slope y~x", number(2)),
        Col("slope_reverse", "Slope x~y", number(2)),
        Col("n_sign_reversed", "Sign-reversed scenarios", fmt_integer),
        Col("n_reversed_significant", "With evidence", fmt_integer),
        Col("ranking", "Category ranking kept", fmt_text, align="center"),
        Col("n", "Scenarios", fmt_integer),
    ),
    notes=(
        "r marks use the unadjusted p-value of the correlation test.",
        "Sign-reversed: scenarios whose mean Δ have opposite signs (the paper's count); with evidence: "
        "of these, both SBS significant, each in its own direction (a significant paired difference "
        "alone does not count; Table M4).",
    ),
    requires=("result_cross_model",),
    empty="needs at least two models in the report.",
)

PROVENANCE = TableSpec(
    key="provenance",
    title="Table S18. Analysis provenance: the result tables this report reads",
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


RQ3_TABLES: tuple[TableSpec, ...] = (TABLE5_MODELS, CATEGORY_RANKING, CROSS_MODEL, PROVENANCE)

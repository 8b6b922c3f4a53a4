"""StylisticBias report: model comparisons with error bars: paired SBS differences, clustered
standard errors, design effects, sign reversals with evidence.

Every number comes from ``result_model_differences`` (paired differences per model pair × level,
Miller 2024) and ``result_cross_model`` (the reversal counts); nothing is recomputed here.
"""

from __future__ import annotations

from cueshift.designs.stylisticbias.method_names import CI_METHOD, FACE_TEST
from cueshift.render import (
    CI_LABEL,
    Col,
    FigureSpec,
    TableSpec,
    TextSpec,
    ci,
    effect,
    fmt_integer,
    fmt_pvalue,
    fmt_text,
    multiple,
    number,
    stub,
)

#: Both models of a row in the report's model subset.
_PAIR_FILTER = "list_contains($models, model_a) AND list_contains($models, model_b)"
_PAIR = "model_a || ' − ' || model_b"
_DIFFERENCE_NOTE = (
    "Difference: SBS of the first model minus SBS of the second on the same faces, the mean over "
    "faces of each face's paired difference of mean Δ (bold/underline: BH-adjusted p of the paired "
    f"test, {FACE_TEST} on the per-face differences, BH within pair × level). CI: face-clustered "
    f"{CI_METHOD} bootstrap. "
    "SE clustered: cluster-robust SE with faces as clusters; SE naive: every Δ row taken as "
    "independent; design effect = (SE clustered / SE naive)², how many times the naive variance "
    'understates the real one (Miller 2024, "Adding error bars to evals").'
)


def _level_columns(stub_col: Col) -> tuple[Col, ...]:
    return (
        stub_col,
        Col("sbs_a", "SBS first", effect(4)),
        Col("sbs_b", "SBS second", effect(4)),
        Col("estimate", "Difference", effect(4), p="p_adj"),
        Col("ci_low", CI_LABEL, ci(4), args=("ci_high",)),
        Col("se_clustered", "SE clustered", number(4)),
        Col("se_naive", "SE naive", number(4)),
        Col("design_effect", "Design effect", multiple(1)),
        Col("p_adj", "p (BH)", fmt_pvalue),
        Col("n", "Faces", fmt_integer),
    )


MODEL_PAIRS = TableSpec(
    key="model_differences_pairs",
    title="Table M1. Model comparisons with error bars: paired SBS difference per model pair",
    sql=f"""
    WITH d AS (SELECT * FROM result_model_differences WHERE {_PAIR_FILTER}),
    counts AS (
        SELECT model_a, model_b,
               count(*) FILTER (WHERE level = 'variation_value' AND p_adj < 0.05) AS values_differ,
               count(*) FILTER (WHERE level = 'variation_value') AS n_values,
               count(*) FILTER (WHERE level = 'scenario' AND p_adj < 0.05) AS scenarios_differ,
               count(*) FILTER (WHERE level = 'scenario') AS n_scenarios
        FROM d GROUP BY model_a, model_b
    )
    SELECT {_PAIR} AS pair, d.sbs_a, d.sbs_b, d.estimate, d.ci_low, d.ci_high, d.p_adj,
           d.se_clustered, d.se_naive, d.design_effect,
           c.values_differ || ' / ' || c.n_values AS values_differ,
           c.scenarios_differ || ' / ' || c.n_scenarios AS scenarios_differ, d.n
    FROM d JOIN counts c USING (model_a, model_b)
    WHERE d.level = 'model'
    ORDER BY model_a, model_b
    """,
    columns=(
        stub("pair", "Models (first − second)"),
        *_level_columns(Col("sbs_a", "SBS first", effect(4)))[1:8],
        Col("values_differ", "Attributes that differ", fmt_text, align="center"),
        Col("scenarios_differ", "Scenarios that differ", fmt_text, align="center"),
        Col("n", "Faces", fmt_integer),
    ),
    notes=(
        _DIFFERENCE_NOTE,
        "Attributes / scenarios that differ: variation values / scenarios whose paired difference has "
        "BH-adjusted p < 0.05 (Tables M2, M3).",
    ),
    requires=("result_model_differences",),
    empty="needs at least two models in the report.",
)

MODEL_REVERSALS = TableSpec(
    key="model_reversals",
    title="Table M4. Sign reversals between models: with evidence or not distinguishable from noise",
    sql=f"""
    SELECT {_PAIR} AS pair, n_sign_reversed, n_reversed_significant,
           n_sign_reversed - n_reversed_significant - n_reversed_not_distinguishable AS n_difference_only,
           n_reversed_not_distinguishable, n
    FROM result_cross_model WHERE {_PAIR_FILTER}
    ORDER BY model_a, model_b
    """,
    columns=(
        stub("pair", "Models"),
        Col("n_sign_reversed", "Opposite point estimates", fmt_integer),
        Col("n_reversed_significant", "Reversed with evidence", fmt_integer),
        Col("n_difference_only", "Difference only", fmt_integer),
        Col("n_reversed_not_distinguishable", "Not distinguishable", fmt_integer),
        Col("n", "Scenarios", fmt_integer),
    ),
    notes=(
        "Opposite point estimates: scenarios whose SBS have opposite signs in the two models (the count "
        "of seed 000, Fig. 5). Reversed with evidence: of these, the scenarios where both SBS differ "
        f"from 0 ({FACE_TEST}, BH within model over scenarios, p < 0.05), each in its own direction. "
        "Difference "
        "only: the paired difference differs from 0 (BH within the pair) but not both SBS, so the signs "
        "are not shown (not counted). The rest are not distinguishable from sampling noise: two judges "
        "with the same effects show such reversals wherever the true SBS is near 0.",
    ),
    requires=("result_cross_model",),
    empty="needs at least two models in the report.",
)


def _level_table(key: str, title: str, level: str, stub_col: Col, keys: str, order: str) -> TableSpec:
    return TableSpec(
        key=key,
        title=title,
        sql=f"""
        SELECT {_PAIR} AS pair, {keys}, sbs_a, sbs_b, estimate, ci_low, ci_high, se_clustered, se_naive,
               design_effect, p_adj, n
        FROM result_model_differences WHERE level = '{level}' AND {_PAIR_FILTER}
        ORDER BY model_a, model_b, {order}
        """,
        columns=_level_columns(stub_col),
        group="pair",
        notes=(_DIFFERENCE_NOTE,),
        requires=("result_model_differences",),
        empty="needs at least two models in the report.",
    )


MODEL_VALUES = _level_table(
    "model_differences_values",
    "Table M2. Paired SBS differences between models per attribute (variation value)",
    "variation_value",
    stub("variation_value", "Attribute"),
    "variation_category, variation_value",
    "variation_category, variation_value",
)
MODEL_SCENARIOS = _level_table(
    "model_differences_scenarios",
    "Table M3. Paired SBS differences between models per scenario",
    "scenario",
    stub("scenario_id", "Scenario"),
    "scenario_category, scenario_id",
    "scenario_category, scenario_id",
)

MODELS_TABLES: tuple[TableSpec, ...] = (MODEL_PAIRS, MODEL_VALUES, MODEL_SCENARIOS, MODEL_REVERSALS)
MODELS_FIGURES: tuple[FigureSpec, ...] = ()
MODELS_TEXTS: tuple[TextSpec, ...] = ()

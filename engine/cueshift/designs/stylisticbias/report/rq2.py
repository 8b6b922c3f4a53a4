"""StylisticBias report, RQ2: which visual attributes shift judgments (Tables 3, 4, 11, S3).

Each cell's significance mark is derived at render time from the stored BH-adjusted p-value
(:func:`cueshift.render.marks`); the Table 11 fill follows :func:`.labels.delta_fill`.
"""

from __future__ import annotations

from cueshift.designs.stylisticbias.group_reversals import COUNTED, REVERSALS_SQL
from cueshift.designs.stylisticbias.method_names import CI_METHOD, FACE_TEST, TWO_GROUP_TEST
from cueshift.designs.stylisticbias.report.labels import (
    ABBREVIATIONS,
    CATEGORIES,
    DIM_POS,
    DIMENSION_LABELS,
    GROUP_ABBREVIATIONS,
    GROUPS,
    MEAN_OF_GROUPS,
    delta_fill,
    dimension_pivot,
    position,
)
from cueshift.render import (
    CI_LABEL,
    EMPHASIS_LEGEND,
    NOT_APPLICABLE_FILL,
    Col,
    Pivot,
    TableSpec,
    ci,
    effect,
    fmt_integer,
    fmt_pvalue_sci,
    multiple,
    number,
    stub,
)

TABLE3_CATEGORY = TableSpec(
    key="table3_category",
    title="Table 3. SBS per attribute category and demographic dimension",
    sql=f"""
    SELECT variation_category, dimension, {DIM_POS} AS col_pos, estimate, p_adj
    FROM result_table3 WHERE "group" = '{MEAN_OF_GROUPS}'
    ORDER BY avg(estimate) OVER (PARTITION BY variation_category) DESC, variation_category, col_pos
    """,
    columns=(stub("variation_category", "Category"),),
    pivot=dimension_pivot("estimate", effect(3), p="p_adj"),
    notes=(
        "Each cell: mean over the dimension's groups of the group SBS (face-level mean Δ), pooled over "
        f"models; test: {FACE_TEST} on per-face mean Δ. Per-group values: Table 11 (values) and "
        "result_table3.",
        EMPHASIS_LEGEND,
    ),
    # a reader seeing four equal columns suspects a bug: say why, when every dimension is balanced
    notes_sql=f"""
    SELECT 'The columns agree: every group of a dimension holds equally many faces, so the mean '
           || 'of the group SBS is the overall SBS whichever dimension splits the faces; the columns '
           || 'differ where the groups are unbalanced (seed 000: 274 male, 226 female faces).'
    FROM result_table3
    WHERE "group" <> '{MEAN_OF_GROUPS}'
    HAVING count(*) > 0 AND NOT EXISTS (
      SELECT 1 FROM result_table3 WHERE "group" <> '{MEAN_OF_GROUPS}'
      GROUP BY variation_category, dimension HAVING min(n) <> max(n))
    """,
    requires=("result_table3",),
)

_AGE_COLUMNS = {"young adult": "Young", "middle-aged adult": "Middle-aged", "elderly": "Elderly"}
_CONTRAST = "elderly - young adult"
_CELLS = ", ".join(
    f"max({column}) FILTER (WHERE \"group\" = '{group}') AS {name}_{column}"
    for group, name in (*((g, f"g{i}") for i, g in enumerate(_AGE_COLUMNS)), (_CONTRAST, "ey"))
    for column in ("estimate", "p_adj", "ci_low", "ci_high")
)

TABLE4_FASHION_AGE = TableSpec(
    key="table4_fashion_age",
    title="Table 4. SBS per fashion style across age groups; elderly − young contrast",
    sql=f"""
    SELECT variation_value, {_CELLS}
    FROM result_table4 GROUP BY variation_value
    ORDER BY g0_estimate DESC NULLS LAST, variation_value
    """,
    columns=(
        stub("variation_value", "Style"),
        *(
            Col(f"g{i}_estimate", label, effect(3), p=f"g{i}_p_adj")
            for i, label in enumerate(_AGE_COLUMNS.values())
        ),
        Col("ey_estimate", "E − Y", effect(3), p="ey_p_adj"),
        Col("ey_ci_low", f"E − Y {CI_LABEL}", ci(3), args=("ey_ci_high",)),
    ),
    notes=(
        f"Age cells: {FACE_TEST} on per-face mean Δ (BH over cells); E − Y: difference of the elderly and "
        f"young SBS with a {TWO_GROUP_TEST} of their per-face means (BH over styles); "
        f"its {CI_LABEL}: face-level "
        "bootstrap of the difference (all faces resampled, the age cells' replicates; the analysis' CI "
        f"method, {CI_METHOD}). Pooled over models.",
        EMPHASIS_LEGEND,
    ),
    requires=("result_table4",),
)

ASYMMETRY = TableSpec(
    key="negativity_asymmetry",
    title="Table S3. Negativity asymmetry: unfavorable vs favorable cues of the same kind (§5.2)",
    sql="""
    SELECT negative_value, positive_value, median_abs_negative, median_abs_positive, estimate,
           p, p_adj, n
    FROM result_negativity_asymmetry ORDER BY estimate DESC NULLS LAST
    """,
    columns=(
        stub("negative_value", "Unfavorable cue"),
        Col("positive_value", "Favorable counterpart", align="left"),
        Col("median_abs_negative", "Median |SBS| unfav.", number(3)),
        Col("median_abs_positive", "Median |SBS| fav.", number(3)),
        Col("estimate", "Ratio", multiple(2), p="p_adj"),
        Col("p_adj", "p (BH)", fmt_pvalue_sci),
        Col("n", "Faces", fmt_integer),
    ),
    notes=(
        f"Median over faces of the per-face |SBS| of each cue; one-sided {FACE_TEST} that the unfavorable "
        "cue moves judgments more than its counterpart, BH over the pairs. Pooled over models.",
        EMPHASIS_LEGEND,
    ),
    requires=("result_negativity_asymmetry",),
)

_GROUP_POS = position('"group"', GROUPS)

TABLE11_DEMOGRAPHIC = TableSpec(
    key="table11_demographic",
    title="Table 11. Mean prediction shift Δ per variation and demographic group",
    sql=f"""
    SELECT variation_category, variation_value, dimension, "group",
           {DIM_POS} * 100 + {_GROUP_POS} AS col_pos, estimate, p_adj
    FROM result_table11
    ORDER BY {position("variation_category", CATEGORIES)}, variation_category, variation_value, col_pos
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
        f"moderate negative −0.10 < Δ ≤ −0.04, strong negative Δ ≤ −0.10. Face-level {FACE_TEST}, BH over "
        "all cells; pooled over models and scenarios.",
        "Sign reversals (a variation whose groups in one dimension, e.g. gender, take both signs) count only "
        "with evidence: a positive and a negative group each significant. Where only the two groups' "
        "per-face mean Δ differ (two-sided Mann–Whitney U, BH over every opposite-signed pair of the table) "
        "the groups differ but neither sign is shown ('difference significant', not counted); the others "
        "are not distinguishable from noise (result_table11: reversal_evidence, reversal_p_adj).",
        EMPHASIS_LEGEND,
        ABBREVIATIONS,
    ),
    notes_sql=f"""
    SELECT 'Cells tested: ' || printf('%,d', count(p_adj)) || ' (variation value × group; BH over all of '
           || 'them); faces per cell (the group''s faces with the variation): '
           || CASE WHEN min(n) = max(n) THEN CAST(min(n) AS VARCHAR) ELSE min(n) || ' to ' || max(n)
                   || ' (median ' || CAST(median(n) AS INTEGER) || ')' END || '.'
    FROM result_table11 HAVING count(*) > 0
    UNION ALL
    SELECT 'Sign reversals ({COUNTED}, as cueshift analyze prints them; per model: Table 11b): '
           || counts || '.'
    FROM ({REVERSALS_SQL.format(t="result_table11")})
    """,
    requires=("result_table11",),
)

RQ2_TABLES: tuple[TableSpec, ...] = (TABLE3_CATEGORY, TABLE4_FASHION_AGE, ASYMMETRY, TABLE11_DEMOGRAPHIC)

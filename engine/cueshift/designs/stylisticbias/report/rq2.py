"""StylisticBias report, RQ2: which visual attributes shift judgments (Tables 3, 4, 11, S9).

Each cell's significance mark is derived at render time from the stored BH-adjusted p-value
(:func:`cueshift.report.marks`); the Table 11 fill follows :func:`.labels.delta_fill`.
"""

from __future__ import annotations

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
    sql_list,
)
from cueshift.report import (
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
        "models; test: WSRT on per-face mean Δ. Per-group values: Table 11 (values) and result_table3.",
        EMPHASIS_LEGEND,
    ),
    requires=("result_table3",),
)

_AGE_COLUMNS = {"young adult": "Young", "middle-aged adult": "Middle-aged", "elderly": "Elderly"}

TABLE4_FASHION_AGE = TableSpec(
    key="table4_fashion_age",
    title="Table 4. SBS per fashion style across age groups; elderly − young contrast",
    sql=f"""
    SELECT variation_value, "group",
           coalesce(list_position({sql_list(list(_AGE_COLUMNS))}, "group"), 4) AS col_pos,
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
        "SBS with a Mann–Whitney U test of their per-face means (BH over styles); its 95% CI: Table 4b. "
        "Pooled over models.",
        EMPHASIS_LEGEND,
    ),
    requires=("result_table4",),
)

TABLE4_CONTRAST = TableSpec(
    key="table4_contrast",
    title="Table 4b. Elderly − young contrast per fashion style with its bootstrap CI",
    sql="""
    SELECT variation_value, estimate, ci_low, ci_high, statistic, p_adj, n
    FROM result_table4 WHERE "group" = 'elderly - young adult'
    ORDER BY estimate DESC NULLS LAST, variation_value
    """,
    columns=(
        stub("variation_value", "Style"),
        Col("estimate", "E − Y", effect(3), p="p_adj"),
        Col("ci_low", "95% CI", ci(3), args=("ci_high",)),
        Col("statistic", "U", number(0)),
        Col("p_adj", "p (BH)", fmt_pvalue_sci),
        Col("n", "Faces", fmt_integer),
    ),
    notes=(
        "E − Y: elderly minus young-adult SBS (face-level means of per-face mean Δ, pooled over models "
        "and scenarios). 95% CI: face-level bootstrap of the difference (all faces resampled, the age "
        "cells' replicates; the analysis' CI method). Test: Mann–Whitney U on the per-face means, BH "
        "over styles. Faces: elderly and young faces with the style.",
        EMPHASIS_LEGEND,
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
        Col("estimate", "Ratio", multiple(2), p="p_adj"),
        Col("p_adj", "p (BH)", fmt_pvalue_sci),
        Col("n", "Faces", fmt_integer),
    ),
    notes=(
        "Median over faces of the per-face |SBS| of each cue; one-sided WSRT that the unfavorable cue "
        "moves judgments more than its counterpart, BH over the pairs. Pooled over models.",
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
        "moderate negative −0.10 < Δ ≤ −0.04, strong negative Δ ≤ −0.10. Face-level WSRT, BH over all cells; "
        "pooled over models and scenarios.",
        EMPHASIS_LEGEND,
        ABBREVIATIONS,
    ),
    requires=("result_table11",),
)

RQ2_TABLES: tuple[TableSpec, ...] = (
    TABLE3_CATEGORY,
    TABLE4_FASHION_AGE,
    TABLE4_CONTRAST,
    ASYMMETRY,
    TABLE11_DEMOGRAPHIC,
)

"""StylisticBias report: crossed demographic subgroups (e.g. age x gender) and per-model versions
of Tables 2, 3, 9 and 11: Tables 2b, 3b, 3c, 9b, 11b and 11c, each shown right after its own table.

Tables 2 and 9 are per model already; their crossed dimensions are shown beside the marginal ones.
Tables 3 and 11 are pooled over models; here per model, and per crossed group.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

from cueshift.designs.stylisticbias.method_names import FACE_TEST, GROUP_TESTS
from cueshift.designs.stylisticbias.report.labels import (
    CATEGORIES,
    DIMENSION_LABELS,
    GROUP_ABBREVIATIONS,
    MEAN_OF_GROUPS,
    MODEL_LABEL,
    MODEL_ORDER,
    MODEL_ROWS,
    case,
    delta_fill,
    position,
)
from cueshift.designs.stylisticbias.stats import ALL_PAIRS, crossed_name
from cueshift.images.labels import AGES, BODY_TYPES, DEMOGRAPHIC_FIELDS, ETHNICITIES, GENDERS
from cueshift.render import (
    EMPHASIS_LEGEND,
    MODELS_FILTER,
    NOT_APPLICABLE_FILL,
    Col,
    Pivot,
    TableSpec,
    by_test,
    effect,
    fmt_integer,
    number,
    percent,
    scoped,
    stub,
)

_GROUPS: Mapping[str, tuple[str, ...]] = {
    "age": AGES,
    "gender": GENDERS,
    "ethnicity": ETHNICITIES,
    "body_type": BODY_TYPES,
}
#: Header of every dimension, marginal and crossed ("Age × gender").
_DIMENSIONS: Mapping[str, str] = {
    **DIMENSION_LABELS,
    **{crossed_name((a, b)): f"{DIMENSION_LABELS[a]} × {DIMENSION_LABELS[b].lower()}" for a, b in ALL_PAIRS},
}
_DIMENSION_ORDER = (*DEMOGRAPHIC_FIELDS, *(crossed_name(p) for p in ALL_PAIRS))
#: Crossed groups in canonical order, and their abbreviated headers ("EL×F").
_CROSSED_GROUPS = tuple(
    f"{ga} × {gb}" for a, b in ALL_PAIRS for ga, gb in itertools.product(_GROUPS[a], _GROUPS[b])
)
_CROSSED_LABELS = {
    g: "×".join(GROUP_ABBREVIATIONS.get(part, part) for part in g.split(" × ")) for g in _CROSSED_GROUPS
}
_DIM_POS = position("dimension", _DIMENSION_ORDER)
_GROUP_POS = position('"group"', _CROSSED_GROUPS)
_COL_POS = f"{_DIM_POS} * 1000 + {_GROUP_POS}"
_UNTESTED_NOTE = """
SELECT 'Crossed cells without a test (too few faces): ' || count(*) FILTER (WHERE untested_reason IS NOT NULL)
       || ' of ' || count(*) || '; smallest cell ' || min(n) || ' faces.'
FROM {table}
"""
_CROSSED_NOTE = (
    "Abbreviations: YA/MA/EL = young/middle-aged adult/elderly, M/F = male/female; a crossed group "
    "joins one group of each dimension. BH over every tested cell of every crossed pair. A cell with "
    "fewer than 6 faces has no test: a two-sided "
    + by_test(rank="signed-rank test", permutation="sign-flip permutation test")
    + " cannot reach p < 0.05 there."
)
#: Table 9b's test of base-face φ between the crossed groups (its crossed columns' own analysis,
#: which ``run_analyses(only=["table9_crossed"])`` may have run apart from Table 9's).
_CROSSED_GROUP_TEST = by_test(
    rank="Kruskal–Wallis over the crossed groups (a label-permutation test where a crossed group has "
    "fewer than 5 faces)",
    permutation="label-permutation test over the crossed groups",
    tables=("result_table9_crossed",),
)


def _crossed_pivot(fill: bool) -> Pivot:
    return Pivot(
        on="group",
        value="estimate",
        fmt=effect(3),
        p="p_adj",
        fill=delta_fill if fill else None,
        spanner="dimension",
        labels=_CROSSED_LABELS,
        spanner_labels=_DIMENSIONS,
        missing_fill=NOT_APPLICABLE_FILL,
        order="col_pos",
    )


TABLE11_CROSSED = TableSpec(
    key="table11_crossed",
    title="Table 11c. Table 11 by crossed subgroup: mean Δ per variation and crossed demographic group",
    sql=f"""
    SELECT variation_category, variation_value, dimension, "group", {_COL_POS} AS col_pos, estimate, p_adj
    FROM result_table11_crossed
    ORDER BY {position("variation_category", CATEGORIES)}, variation_category, variation_value, col_pos
    """,
    columns=(stub("variation_value", "Variation"),),
    group="variation_category",
    pivot=_crossed_pivot(fill=True),
    notes=(
        f"Face-level mean Δ of the crossed group's faces, pooled over models and scenarios; {FACE_TEST}. "
        "Colours as Table 11. An effect confined to one crossed group is diluted in both of its marginal "
        "groups.",
        _CROSSED_NOTE,
        EMPHASIS_LEGEND,
    ),
    notes_sql=_UNTESTED_NOTE.format(table="result_table11_crossed"),
    requires=("result_table11_crossed",),
)

TABLE3_CROSSED = TableSpec(
    key="table3_crossed",
    title="Table 3c. Table 3 by crossed subgroup: SBS per attribute category and crossed demographic group",
    sql=f"""
    SELECT variation_category, dimension, "group", {_COL_POS} AS col_pos, estimate, p_adj
    FROM result_table3_crossed
    ORDER BY avg(estimate) OVER (PARTITION BY variation_category) DESC, variation_category, col_pos
    """,
    columns=(stub("variation_category", "Category"),),
    pivot=_crossed_pivot(fill=False),
    notes=(
        f"Face-level mean Δ over the category's values, scenarios and models; {FACE_TEST}.",
        _CROSSED_NOTE,
        EMPHASIS_LEGEND,
    ),
    notes_sql=_UNTESTED_NOTE.format(table="result_table3_crossed"),
    requires=("result_table3_crossed",),
)


def _marginal_and_crossed(marginal: str, crossed: str) -> str:
    """Each model's ``estimate`` per dimension of both tables (crossed dimensions after the marginal)."""
    return f"""
    SELECT {MODEL_LABEL} AS model, dimension, {_DIM_POS} AS col_pos, estimate
    FROM (SELECT model_id, dimension, estimate FROM {marginal}
          UNION ALL SELECT model_id, dimension, estimate FROM {crossed})
    WHERE {MODEL_ROWS}
    ORDER BY {MODEL_ORDER}, col_pos
    """


def _dimension_pivot(fmt_decimals: int, as_percent: bool) -> Pivot:
    fmt = percent(fmt_decimals) if as_percent else number(fmt_decimals)
    return Pivot(on="dimension", value="estimate", fmt=fmt, labels=_DIMENSIONS, order="col_pos")


TABLE2_CROSSED = TableSpec(
    key="table2_crossed",
    title="Table 2b. Table 2 with crossed dimensions: Variation Strength per model",
    sql=_marginal_and_crossed("result_table2_vs", "result_table2_crossed"),
    columns=(stub("model", "Model"),),
    pivot=_dimension_pivot(3, as_percent=False),
    notes=(
        "VS (Eq. 3) over the groups of each dimension; a crossed dimension's groups are the crossed groups. "
        "Crossed groups hold fewer faces, and VS (a standard deviation of noisy group means) grows with that "
        "noise: compare crossed with marginal VS with the group sizes in mind.",
    ),
    notes_sql=f"""
    SELECT 'Faces in the smallest crossed group: '
           || string_agg(label || ' ' || n_faces_min, ', ' ORDER BY pos) || '.'
    FROM (SELECT DISTINCT {case("dimension", _DIMENSIONS)} AS label, {_DIM_POS} AS pos, n_faces_min
          FROM result_table2_crossed)
    """,
    requires=("result_table2_vs", "result_table2_crossed"),
)

TABLE9_CROSSED = TableSpec(
    key="table9_crossed",
    title="Table 9b. Table 9 with crossed dimensions: share of scenarios with a significant group difference",
    sql=_marginal_and_crossed("result_table9", "result_table9_crossed"),
    columns=(stub("model", "Model"),),
    pivot=_dimension_pivot(0, as_percent=True),
    notes=(
        f"Marginal dimensions: Table 9 ({scoped(GROUP_TESTS, 'result_table9')}, BH within model × "
        f"dimension). Crossed dimensions: {_CROSSED_GROUP_TEST}, BH within model over every crossed "
        "dimension × scenario.",
    ),
    requires=("result_table9", "result_table9_crossed"),
)

TABLE3_BY_MODEL = TableSpec(
    key="table3_by_model",
    title="Table 3b. Table 3 per model: SBS per attribute category and demographic dimension",
    sql=f"""
    SELECT variation_category, model_id, dimension, {_DIM_POS} AS col_pos, estimate, p_adj
    FROM result_table3_by_model WHERE "group" = '{MEAN_OF_GROUPS}' AND {MODELS_FILTER}
    ORDER BY avg(estimate) OVER (PARTITION BY variation_category) DESC, variation_category, model_id, col_pos
    """,
    columns=(stub("variation_category", "Category"), stub("model_id", "Model")),
    pivot=Pivot(
        on="dimension", value="estimate", fmt=effect(3), p="p_adj", labels=_DIMENSIONS, order="col_pos"
    ),
    notes=(
        "As Table 3 on each model's Δ rows alone: mean over the dimension's groups of the group SBS; "
        f"{FACE_TEST} on per-face mean Δ; BH within dimension over every model's categories. Per-group rows: "
        "result_table3_by_model.",
        EMPHASIS_LEGEND,
    ),
    requires=("result_table3_by_model",),
)

TABLE11_BY_MODEL = TableSpec(
    key="table11_by_model",
    title="Table 11b. Table 11 per model: significant variation × group cells and sign reversals",
    sql=f"""
    SELECT model_id, {case("dimension", _DIMENSIONS)} AS dimension_label, {_DIM_POS} AS col_pos,
           count(*) AS cells,
           count(*) FILTER (WHERE p_adj < 0.05) AS significant,
           count(*) FILTER (WHERE p_adj < 0.05 AND estimate > 0) AS positive,
           count(*) FILTER (WHERE p_adj < 0.05 AND estimate < 0) AS negative,
           count(DISTINCT variation_value) FILTER (WHERE sign_reversal_both) AS reversals,
           count(DISTINCT variation_value) FILTER (WHERE reversal_evidence = 'difference significant')
               AS reversals_difference
    FROM result_table11_by_model WHERE {MODELS_FILTER}
    GROUP BY model_id, dimension ORDER BY model_id, col_pos
    """,
    columns=(
        stub("dimension_label", "Dimension"),
        Col("cells", "Cells", fmt_integer),
        Col("significant", "Significant", fmt_integer),
        Col("positive", "Δ > 0", fmt_integer),
        Col("negative", "Δ < 0", fmt_integer),
        Col("reversals", "Sign reversals", fmt_integer),
        Col("reversals_difference", "difference only", fmt_integer),
    ),
    group="model_id",
    notes=(
        "Table 11 computed on each model's Δ rows alone (cells: variation value × demographic group); "
        "BH over every cell of every model (a larger family than the pooled Table 11's). Sign reversal: "
        "a value whose groups take both signs, with evidence: a positive and a negative group each "
        "significant. Difference only: the groups' per-face means differ (Mann–Whitney U, BH) but neither "
        "sign is shown, so no reversal is counted; the rest are not distinguishable (reversal_evidence). "
        "Every cell: result_table11_by_model.",
    ),
    requires=("result_table11_by_model",),
)

#: In the order of their numbers; ``study.qmd`` shows each right after its own table (D65).
SUBGROUPS_TABLES: tuple[TableSpec, ...] = (
    TABLE2_CROSSED,
    TABLE3_BY_MODEL,
    TABLE3_CROSSED,
    TABLE9_CROSSED,
    TABLE11_BY_MODEL,
    TABLE11_CROSSED,
)

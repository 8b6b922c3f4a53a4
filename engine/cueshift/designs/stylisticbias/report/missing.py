"""StylisticBias report: missing answers: invalid and refusal rates per group x variation x model,
and their shifts (the "Missing answers by group and variation" section).

Nothing is recomputed here: the queries lay out ``result_missing_shift``, ``result_missing_rates``
and ``result_missing_by_ordering`` (:mod:`cueshift.designs.stylisticbias.stats._missing`).
"""

from __future__ import annotations

from cueshift.designs.stylisticbias.report.labels import (
    ABBREVIATIONS,
    CATEGORIES,
    CI_METHOD_LABELS,
    DIMENSION_LABELS,
    GROUP_ABBREVIATIONS,
    GROUPS,
    TEST_LABELS,
    case,
    position,
)
from cueshift.images.labels import DEMOGRAPHIC_FIELDS
from cueshift.render import (
    CI_LABEL,
    EMPHASIS_LEGEND,
    MODELS_FILTER,
    NOT_APPLICABLE_FILL,
    Col,
    FigureSpec,
    Pivot,
    TableSpec,
    TextSpec,
    fmt_integer,
    percent,
    points,
    points_ci,
    stub,
)

_VALUE_ORDER = f"{position('variation_category', CATEGORIES)}, variation_category, variation_value"
_PER_RATE = ", ".join(
    f"max({column}) FILTER (WHERE rate = '{rate}') AS {rate}_{column}"
    for rate in ("invalid", "refusal")
    for column in ("rate_base", "rate_variation", "estimate", "ci_low", "ci_high", "p_adj")
)
_METHOD_NOTE = f"""
SELECT 'Face-level rates (every face weighs the same) with ' || {case("max(ci_method)", CI_METHOD_LABELS)}
       || ' face-level bootstrap intervals; ' || {case("max(test)", TEST_LABELS)}
       || ' test of the per-face shift against 0, BH within model × rate × dimension; '
       || max(n) || ' faces at most per cell.'
FROM result_missing_shift
"""

MISSING_SHIFT = TableSpec(
    key="missing_shift",
    title=(
        "Table S13. Invalid answers and refusals per variation: rates on the base and variation images, "
        "and the shift"
    ),
    sql=f"""
    SELECT model_id, variation_category, variation_value, {_PER_RATE}, max(n_obs) AS n_obs
    FROM result_missing_shift
    WHERE dimension = '(all)' AND ({MODELS_FILTER} OR model_id = '(pooled)')
    GROUP BY model_id, variation_category, variation_value
    ORDER BY model_id = '(pooled)', model_id, {_VALUE_ORDER}
    """,
    columns=(
        stub("variation_value", "Variation"),
        Col("invalid_rate_base", "Invalid, base", percent(1)),
        Col("invalid_rate_variation", "Invalid, variation", percent(1)),
        Col("invalid_estimate", "Δ invalid (pp)", points(2), p="invalid_p_adj"),
        Col("invalid_ci_low", f"{CI_LABEL} (pp)", points_ci(2), args=("invalid_ci_high",)),
        Col("refusal_rate_base", "Refusals, base", percent(1)),
        Col("refusal_rate_variation", "Refusals, variation", percent(1)),
        Col("refusal_estimate", "Δ refusals (pp)", points(2), p="refusal_p_adj"),
        Col("refusal_ci_low", f"{CI_LABEL} (pp)", points_ci(2), args=("refusal_ci_high",)),
        Col("n_obs", "Answers", fmt_integer),
    ),
    group="model_id",
    notes=(
        "An answer is invalid when the strict parser maps it to neither option (refusal, hedge, both, "
        "neither, negation, conflict, no answer; judgment.invalid_reason); a refusal is the parser's "
        "'refusal'. Δ: per face, the rate on the variation image minus the rate on the same face's base "
        "image, averaged over faces, in percentage points (pp). φ averages valid answers only: a "
        "variation that raises refusals for some faces changes which answers φ sees, so a Δ of φ beside "
        "a Δ of refusals is read with care. Refusal columns are empty for a model whose invalid answers "
        "were stored without a reason.",
        EMPHASIS_LEGEND,
    ),
    notes_sql=_METHOD_NOTE,
    requires=("result_missing_shift",),
)

_GROUP_POS = position('"group"', GROUPS)
_GROUP_COLUMNS = f"{position('dimension', DEMOGRAPHIC_FIELDS)} * 100 + {_GROUP_POS}"

MISSING_SHIFT_BY_GROUP = TableSpec(
    key="missing_shift_by_group",
    title=(
        "Table S14. Shift of the invalid rate per variation and demographic group, percentage points "
        "(all models pooled)"
    ),
    sql=f"""
    SELECT variation_category, variation_value, dimension, "group", {_GROUP_COLUMNS} AS col_pos,
           estimate, p_adj
    FROM result_missing_shift
    WHERE model_id = '(pooled)' AND rate = 'invalid' AND dimension <> '(all)'
    ORDER BY {_VALUE_ORDER}, col_pos
    """,
    columns=(stub("variation_value", "Variation"),),
    group="variation_category",
    pivot=Pivot(
        on="group",
        value="estimate",
        fmt=points(2),
        p="p_adj",
        spanner="dimension",
        labels=GROUP_ABBREVIATIONS,
        spanner_labels=DIMENSION_LABELS,
        missing_fill=NOT_APPLICABLE_FILL,
        order="col_pos",
    ),
    notes=(
        "Face-level mean shift of the invalid rate (variation image minus the same face's base image, "
        "in percentage points) "
        "among the group's faces, pooled over models (a face's answers of every model together). A "
        "shift confined to one group means the answers φ averages are selected differently there.",
        ABBREVIATIONS,
        EMPHASIS_LEGEND,
    ),
    requires=("result_missing_shift",),
)

MISSING_BASE_RATES = TableSpec(
    key="missing_base_rates",
    title="Table S15. Invalid answers and refusals on the base images per model and demographic group",
    sql=f"""
    SELECT model_id, rate, dimension, "group", {_GROUP_COLUMNS} AS col_pos, estimate
    FROM result_missing_rates
    WHERE variation_value = '(base)' AND dimension <> '(all)' AND ({MODELS_FILTER} OR model_id = '(pooled)')
    ORDER BY model_id = '(pooled)', model_id, rate, col_pos
    """,
    columns=(stub("model_id", "Model"), stub("rate", "Rate")),
    pivot=Pivot(
        on="group",
        value="estimate",
        fmt=percent(1),
        spanner="dimension",
        labels=GROUP_ABBREVIATIONS,
        spanner_labels=DIMENSION_LABELS,
        missing_fill=NOT_APPLICABLE_FILL,
        order="col_pos",
    ),
    notes=(
        "Share of the answers about the group's base images that are invalid (refusals: the parser's "
        "reason 'refusal'), face-level. result_missing_rates holds every variation value as well, with "
        "Wilson intervals at the effective sample size of the face clusters.",
        ABBREVIATIONS,
    ),
    requires=("result_missing_rates",),
)

_NAMED = {"a": "names (a)", "b": "names (b)", "both": "names both", "none": "names neither"}

MISSING_BY_ORDERING = TableSpec(
    key="missing_by_ordering",
    title="Table S16. Invalid answers per ordering and the option they would have named",
    sql=f"""
    SELECT model_id, ordering,
           CASE WHEN ordering IN (1, 2) THEN '(a)' ELSE '(b)' END AS favorable_letter,
           named_letter, list_position(['a', 'b', 'both', 'none'], named_letter) AS col_pos,
           estimate, sum(n_answers) OVER (PARTITION BY model_id, ordering) / 4 AS n_answers
    FROM result_missing_by_ordering
    WHERE {MODELS_FILTER} OR model_id = '(pooled)'
    ORDER BY model_id = '(pooled)', model_id, ordering, col_pos
    """,
    columns=(
        stub("model_id", "Model"),
        Col("ordering", "Ordering", fmt_integer),
        Col("favorable_letter", "Favorable", align="center"),
        Col("n_answers", "Answers", fmt_integer),
    ),
    pivot=Pivot(on="named_letter", value="estimate", fmt=percent(2), labels=_NAMED, order="col_pos"),
    notes=(
        "Share of the ordering's answers that are invalid and, read by the letter and descriptor rules "
        "alone (cueshift.inference.parser.named_letter), name that option. The parser accepts the two "
        "letters and the two poles alike; shares that change with the letter of the favorable pole would "
        "mean the model's refusals (or hedges) lean to a pole, and φ would average a different selection of "
        "answers in each ordering.",
    ),
    requires=("result_missing_by_ordering",),
)

MISSING_LEAN = TableSpec(
    key="missing_lean",
    title="Table S17. Do the invalid answers lean to a pole?",
    sql=f"""
    SELECT model_id, share_favorable, share_unfavorable, estimate, ci_low, ci_high, p_adj, n, n_answers
    FROM result_missing_lean
    WHERE {MODELS_FILTER} OR model_id = '(pooled)'
    ORDER BY model_id = '(pooled)', model_id
    """,
    columns=(
        stub("model_id", "Model"),
        Col("share_favorable", "Invalid, naming favorable", percent(2)),
        Col("share_unfavorable", "Invalid, naming unfavorable", percent(2)),
        Col("estimate", "Lean (pp)", points(3), p="p_adj"),
        Col("ci_low", f"{CI_LABEL} (pp)", points_ci(3), args=("ci_high",)),
        Col("n", "Faces", fmt_integer),
        Col("n_answers", "Answers", fmt_integer),
    ),
    notes=(
        "Per face: (invalid answers naming the favorable pole's letter − those naming the unfavorable "
        "pole's letter) / answers, over all orderings, averaged over faces, in percentage points. φ sees "
        "valid answers only: a positive lean means the answers it leaves out favor the favorable pole (φ "
        "understates it), a negative one the reverse; a lean indistinguishable from 0 means leaving "
        "invalid answers out does not bias φ.",
        EMPHASIS_LEGEND,
    ),
    requires=("result_missing_lean",),
)

MISSING_TABLES: tuple[TableSpec, ...] = (
    MISSING_SHIFT,
    MISSING_SHIFT_BY_GROUP,
    MISSING_BASE_RATES,
    MISSING_BY_ORDERING,
    MISSING_LEAN,
)
MISSING_FIGURES: tuple[FigureSpec, ...] = ()
MISSING_TEXTS: tuple[TextSpec, ...] = ()

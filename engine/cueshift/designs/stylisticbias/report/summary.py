"""StylisticBias report: study summary and data-quality tables (base tables and views; S1–S8).

Each :class:`~cueshift.render.TableSpec` is one SQL query plus display rules; the RQ1–RQ3
tables built on the statistics engine's ``result_*`` tables live in :mod:`.rq1`, :mod:`.rq2`
and :mod:`.rq3`. ``$models`` is the model subset (``VARCHAR[]``).
"""

from __future__ import annotations

from cueshift.designs.stylisticbias.report.identity_models import IDENTITY_MODEL_TABLES
from cueshift.render import (
    Col,
    Pivot,
    TableSpec,
    fmt_effect,
    fmt_integer,
    fmt_number,
    fmt_text,
    percent,
    stub,
)
from cueshift.views import PLACEBO_FEATURE_KEY as PLACEBO

#: Invalid-answer rate from which a cell is flagged in the data-quality tables.
INVALID_FLAG = 0.05
_FLAG_FILL = "#fde2b8"


def _flag_invalid(value: object) -> str | None:
    return _FLAG_FILL if isinstance(value, int | float) and value >= INVALID_FLAG else None


STUDY_DESIGN = TableSpec(
    key="benchmark",
    title="Table S1. Study design: faces, images, scenarios, prompts and judgments",
    sql=f"""
    WITH img AS (SELECT * FROM image WHERE lower(coalesce(feature_key, '')) <> '{PLACEBO}'),
         j AS (SELECT * FROM judgment WHERE list_contains($models, model_id))
    SELECT * FROM (
      SELECT 1 AS pos, 'Faces (identities with a base image)' AS quantity,
             (SELECT count(DISTINCT face_id) FROM img WHERE role = 'base') AS n
      UNION ALL SELECT 2, 'Base images', (SELECT count(*) FROM img WHERE role = 'base')
      UNION ALL SELECT 3, 'Variation images (all)', (SELECT count(*) FROM img WHERE role = 'variation')
      UNION ALL SELECT 4, 'Variation images evaluated',
             (SELECT count(*) FROM img WHERE role = 'variation' AND evaluated)
      UNION ALL SELECT 5, 'Variation images excluded',
             (SELECT count(*) FROM img WHERE role = 'variation' AND NOT evaluated)
      UNION ALL SELECT 6, 'Variation values evaluated',
             (SELECT count(DISTINCT (feature_key, variation_value)) FROM img
              WHERE role = 'variation' AND evaluated)
      UNION ALL SELECT 7, 'Variation categories evaluated',
             (SELECT count(DISTINCT variation_category) FROM img WHERE role = 'variation' AND evaluated)
      UNION ALL SELECT 8, 'Placebo images (noise floor: identical copy, lossless re-encode)',
             (SELECT count(*) FROM image WHERE lower(coalesce(feature_key, '')) = '{PLACEBO}' AND evaluated)
      UNION ALL SELECT 9, 'Scenarios', (SELECT count(*) FROM scenario)
      UNION ALL SELECT 10, 'Prompt orderings', (SELECT count(DISTINCT ordering) FROM j)
      UNION ALL SELECT 11, 'Seeds', (SELECT count(DISTINCT seed) FROM j)
      UNION ALL SELECT 12, 'Models', (SELECT count(DISTINCT model_id) FROM j)
      UNION ALL SELECT 13, 'Judgments', (SELECT count(*) FROM j)
    ) ORDER BY pos
    """,
    columns=(stub("quantity", "Quantity"), Col("n", "N", fmt_integer)),
    notes=(
        "Variation rows count the attribute variations; the placebos (two per base image, true Δ = 0) "
        "are counted apart and judged like them (see the noise floor).",
    ),
    requires=("image", "scenario", "judgment"),
)

DEMOGRAPHICS = TableSpec(
    key="demographics",
    title="Table S2. Base faces per demographic group (perceived labels)",
    sql="""
    WITH faces AS (
      SELECT DISTINCT i.face_id, i.age, i.gender, i.ethnicity, i.body_type
      FROM face i JOIN image m ON m.face_id = i.face_id AND m.role = 'base'
    ), long AS (
      UNPIVOT faces ON age, gender, ethnicity, body_type INTO NAME dimension VALUE grp
    )
    SELECT CASE dimension WHEN 'age' THEN 'Age' WHEN 'gender' THEN 'Gender'
                WHEN 'ethnicity' THEN 'Ethnicity' ELSE 'Body type' END AS dimension_label,
           grp, count(*) AS n, count(*) / (SELECT count(*) FROM faces) AS share
    FROM long
    GROUP BY dimension, grp
    ORDER BY list_position(['age', 'gender', 'ethnicity', 'body_type'], dimension), n DESC, grp
    """,
    columns=(stub("grp", "Group"), Col("n", "Faces", fmt_integer), Col("share", "Share", percent(1))),
    group="dimension_label",
    requires=("face", "image"),
)

VARIATIONS = TableSpec(
    key="variations",
    title="Table S4. Variation values: images kept for judgment and excluded (with the reason)",
    sql="""
    SELECT coalesce(variation_category, feature_key, '(none)') AS category,
           variation_value,
           count(*) AS n_images,
           count(*) FILTER (WHERE evaluated) AS n_evaluated,
           count(*) FILTER (WHERE NOT evaluated) AS n_excluded,
           string_agg(DISTINCT exclusion_reason, '; ' ORDER BY exclusion_reason) AS reasons
    FROM image
    WHERE role = 'variation'
    GROUP BY ALL
    ORDER BY min(feature_key), category, n_evaluated = 0, variation_value
    """,
    columns=(
        stub("variation_value", "Value"),
        Col("n_images", "Images", fmt_integer),
        Col("n_evaluated", "Kept", fmt_integer),
        Col("n_excluded", "Excluded", fmt_integer),
        Col("reasons", "Why excluded", fmt_text, align="left"),
    ),
    group="category",
    notes=("Excluded images stay in the database (image.exclusion_reason); only kept images are judged.",),
    requires=("image",),
)

EXCLUSIONS = TableSpec(
    key="exclusions",
    title="Table S3. Why variation images were excluded",
    sql="""
    SELECT exclusion_reason AS reason, count(*) AS n_images,
           count(DISTINCT (feature_key, variation_value)) AS n_values,
           string_agg(DISTINCT variation_value, ', ' ORDER BY variation_value) AS values_
    FROM image WHERE role = 'variation' AND NOT evaluated
    GROUP BY ALL ORDER BY n_images DESC, reason
    """,
    columns=(
        stub("reason", "Reason"),
        Col("n_images", "Images", fmt_integer),
        Col("n_values", "Values", fmt_integer),
        Col("values_", "Which", fmt_text, align="left"),
    ),
    requires=("image",),
)

MODELS = TableSpec(
    key="models",
    title="Table S5. Models (judges) and their settings",
    sql="""
    SELECT model_id, backend, checkpoint, coalesce(revision, '–') AS revision,
           CAST(settings AS VARCHAR) AS settings
    FROM model WHERE list_contains($models, model_id) ORDER BY model_id
    """,
    columns=(
        stub("model_id", "Model"),
        Col("backend", "Backend", align="left"),
        Col("checkpoint", "Checkpoint", align="left"),
        Col("revision", "Revision", align="left"),
        Col("settings", "Settings", align="left"),
    ),
    requires=("model",),
)

JUDGMENTS = TableSpec(
    key="judgments",
    title="Table S6. Judgments per model: completeness and invalid answers",
    sql="""
    WITH plan AS (
      SELECT (SELECT count(*) FROM image WHERE role = 'base' OR evaluated) AS n_images,
             (SELECT count(*) FROM scenario) AS n_scenarios
    ), per_model AS (
      SELECT model_id, count(*) AS n_judgments,
             count(DISTINCT ordering) AS n_orderings, count(DISTINCT seed) AS n_seeds,
             count(*) FILTER (WHERE outcome = 'invalid') AS n_invalid
      FROM judgment WHERE list_contains($models, model_id) GROUP BY model_id
    ), empty_cells AS (
      SELECT model_id, count(*) FILTER (WHERE n_valid = 0) AS n_empty, count(*) AS n_cells
      FROM phi WHERE list_contains($models, model_id) GROUP BY model_id
    )
    SELECT m.model_id, m.n_judgments,
           m.n_judgments / (plan.n_images * plan.n_scenarios * m.n_orderings * m.n_seeds) AS completeness,
           m.n_invalid, m.n_invalid / m.n_judgments AS invalid_rate,
           e.n_empty, e.n_cells
    FROM per_model m JOIN empty_cells e USING (model_id), plan
    ORDER BY m.model_id
    """,
    columns=(
        stub("model_id", "Model"),
        Col("n_judgments", "Judgments", fmt_integer),
        Col("completeness", "Of planned", percent(1)),
        Col("n_invalid", "Invalid", fmt_integer),
        Col("invalid_rate", "Invalid rate", percent(2), fill=_flag_invalid),
        Col("n_cells", "φ cells", fmt_integer),
        Col("n_empty", "Cells without a valid answer", fmt_integer),
    ),
    notes=(
        "Planned = (base + kept variation images) × scenarios × orderings × seeds stored for the model. "
        "A φ cell (model × image × scenario) without any valid answer has no φ and no Δ. "
        f"Shaded: invalid rate ≥ {INVALID_FLAG:.0%}.",
    ),
    requires=("judgment", "image", "scenario", "phi"),
)

INVALID_BY_SCENARIO = TableSpec(
    key="invalid_by_scenario",
    title="Table S7. Invalid-answer rate per scenario and model",
    sql="""
    SELECT s.category, s.favorable || ' / ' || s.unfavorable AS scenario, j.model_id,
           count(*) FILTER (WHERE j.outcome = 'invalid') / count(*) AS invalid_rate
    FROM judgment j JOIN scenario s USING (scenario_id)
    WHERE list_contains($models, j.model_id)
    GROUP BY s.category, s.position, s.favorable, s.unfavorable, j.model_id
    ORDER BY list_position(['Personality & Social', 'Interpersonal', 'Behavioral',
                            'Socioeconomic & Appearance'], s.category), s.category, s.position, j.model_id
    """,
    columns=(stub("scenario", "Scenario (favorable / unfavorable)"),),
    pivot=Pivot(on="model_id", value="invalid_rate", fmt=percent(1), fill=_flag_invalid),
    group="category",
    notes=(f"Share of judgments whose answer the parser rejected. Shaded: ≥ {INVALID_FLAG:.0%}.",),
    requires=("judgment", "scenario"),
)

ORDERINGS = TableSpec(
    key="orderings",
    title="Table S8. Answers per prompt ordering: favorable share and invalid rate",
    sql="""
    SELECT j.model_id, j.ordering,
           CASE WHEN p.favorable_first THEN 'favorable first' ELSE 'unfavorable first' END
             || ', (' || p.favorable_letter || ') = favorable' AS variant,
           count(*) FILTER (WHERE outcome = 'favorable')
             / nullif(count(*) FILTER (WHERE outcome <> 'invalid'), 0) AS favorable_share,
           count(*) FILTER (WHERE outcome = 'invalid') / count(*) AS invalid_rate
    FROM judgment j LEFT JOIN prompt_variant p USING (ordering)
    WHERE list_contains($models, j.model_id)
    GROUP BY ALL ORDER BY j.model_id, j.ordering
    """,
    columns=(
        stub("ordering", "Ordering"),
        Col("variant", "Variant", align="left"),
        Col("favorable_share", "Favorable share (valid answers)", percent(1)),
        Col("invalid_rate", "Invalid rate", percent(2), fill=_flag_invalid),
    ),
    group="model_id",
    notes=("Order/label effects show as favorable shares that differ between orderings of one model.",),
    requires=("judgment", "prompt_variant"),
)

IDENTITY = TableSpec(
    key="identity_drops",
    title="Table S13. Counterfactual quality: variations each --min-identity threshold drops",
    sql="""
    SELECT printf('cosine < %.2f', threshold) || CASE WHEN applied THEN ' (applied in this run)' ELSE '' END
             AS threshold_label,
           CASE WHEN feature_key = 'all' THEN 'All attributes' ELSE feature_key END AS attribute,
           n_variations, n_dropped, share_dropped, n_outliers, median_cosine, min_cosine, sbs_all, sbs_kept,
           CASE WHEN sign_kept THEN 'yes' WHEN NOT sign_kept THEN 'no' ELSE '' END AS sign_kept
    FROM result_identity_drops
    ORDER BY threshold, feature_key <> 'all', feature_key
    """,
    columns=(
        stub("attribute", "Attribute"),
        Col("n_variations", "Variations", fmt_integer),
        Col("n_dropped", "Dropped", fmt_integer),
        Col("share_dropped", "Share dropped", percent(1)),
        Col("n_outliers", "Outliers", fmt_integer),
        Col("median_cosine", "Median cosine", fmt_number),
        Col("min_cosine", "Lowest cosine", fmt_number),
        Col("sbs_all", "SBS (all)", fmt_effect),
        Col("sbs_kept", "SBS (kept)", fmt_effect),
        Col("sign_kept", "Same sign", fmt_text),
    ),
    group="threshold_label",
    notes=(
        "Identity preservation: cosine of the CLIP image embeddings of a variation and its base "
        "([quality] encoder). A variation below the threshold is dropped by `cueshift analyze "
        "--min-identity`; outliers have a robust z (0.6745 (c - median) / MAD within the attribute) "
        "below the cut-off (Iglewicz & Hoaglin 1993). SBS: the attribute's face-level mean Δ (pooled "
        "over models, scenarios and values) over every variation and over those a threshold keeps; "
        "same sign: whether the attribute's direction survives the drop. The rows marked applied "
        "give the threshold the result tables of this run were computed with.",
    ),
    notes_sql="""
    SELECT 'With [audit.faces] identity_filter = true, --min-identity also dropped the variations the face '
           || 'models cannot call the same person: Dropped counts what either model drops (Table S13b: each '
           || 'model''s drops).'
    WHERE EXISTS (SELECT 1 FROM result_identity_drops WHERE n_dropped_both IS NOT NULL)
    """,
    requires=("result_identity_drops",),
    empty="no counterfactual-quality measure: set [quality] encoder in the study file.",
)

SUMMARY_TABLES: tuple[TableSpec, ...] = (
    STUDY_DESIGN,
    DEMOGRAPHICS,
    VARIATIONS,
    EXCLUSIONS,
    MODELS,
    JUDGMENTS,
    INVALID_BY_SCENARIO,
    ORDERINGS,
    IDENTITY,
    *IDENTITY_MODEL_TABLES,
)

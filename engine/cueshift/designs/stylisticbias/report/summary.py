"""StylisticBias report: study summary and data-quality tables (base tables and views; S1, S2, S6–S12).

Each :class:`~cueshift.render.TableSpec` is one SQL query plus display rules; the RQ1–RQ3
tables built on the statistics engine's ``result_*`` tables live in :mod:`.rq1`, :mod:`.rq2`
and :mod:`.rq3`. ``$models`` is the model subset (``VARCHAR[]``). S1 and S6–S8 are here, the judges'
data-quality tables S2 and S9–S11 in :mod:`.data_quality`, the counterfactual-quality tables S12 and
S12b in :mod:`.identity_models`; :data:`SUMMARY_TABLES` lists them all in the report's order.
"""

from __future__ import annotations

from cueshift.designs.stylisticbias.report.data_quality import (
    INVALID_BY_SCENARIO,
    JUDGMENTS,
    MODELS,
    ORDERINGS,
)
from cueshift.designs.stylisticbias.report.identity_models import IDENTITY, IDENTITY_MODEL_TABLES
from cueshift.render import (
    Col,
    TableSpec,
    fmt_integer,
    fmt_text,
    percent,
    stub,
)
from cueshift.views import PLACEBO_FEATURE_KEY as PLACEBO

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
    title="Table S6. Base faces per demographic group (perceived labels)",
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
    title="Table S8. Variation values: images kept for judgment and excluded (with the reason)",
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
    title="Table S7. Why variation images were excluded",
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

"""StylisticBias report: the face models of the edit audit (``[audit.faces]``, docs/faces.md).

Beside the CLIP identity cosine, what the trained face models found: per attribute the faces the
detector found (no face, several faces: ``face_detection``), the face-recognition distance of
each variation to its base with its same-person threshold, and the skin tone (ITA°) change by
attribute and by the base face's ethnicity × gender with face-level intervals
(``audit_skin_tone``), labelled with the level ``cueshift audit`` computed them at (the table's
``confidence_level``, read by :func:`cueshift.render.stored_level`). Every table is optional: a
study without ``[audit.faces]`` shows none of them. Nothing is recomputed here: the rows are
those ``cueshift audit`` stored.
"""

from __future__ import annotations

from cueshift.render import CI_LABEL, LEVEL, Col, TableSpec, TextSpec, ci, fmt_integer, number, stub
from cueshift.schemas.audit_skin import ALL


def _signed(column: str) -> str:
    """SQL of ``column`` as the report writes a signed number: ``+1.25``, ``−0.50`` (U+2212)."""
    return f"replace(printf('%+.2f', {column}), '-', '−')"


#: The variations with a face-model row and, per variation, what the detector found on it and its base.
_FOUND = """
    WITH pairs AS (
        SELECT image_id, base_image_id, source AS detector FROM edit_audit WHERE measure = 'face_count'
    ), found AS (
        SELECT p.image_id, b.finding = 'no face' OR v.finding = 'no face' AS no_face,
               b.finding = 'several faces' OR v.finding = 'several faces' AS several
        FROM pairs AS p
        LEFT JOIN face_detection AS b ON b.image_id = p.base_image_id AND b.detector = p.detector
        LEFT JOIN face_detection AS v ON v.image_id = p.image_id AND v.detector = p.detector
    )"""

FACE_IDENTITY = TableSpec(
    key="audit_face_identity",
    title="Table A2. Edit audit, face models: faces found and identity (face recognition beside CLIP)",
    sql=f"""{_FOUND}
    SELECT CASE WHEN grouping(a.feature_key) = 1 THEN 'All attributes' ELSE a.feature_key END AS attribute,
           CASE WHEN grouping(a.variation_value) = 1 THEN 'every value'
                ELSE coalesce(a.variation_value, '–') END AS value_label,
           count(DISTINCT a.image_id) FILTER (WHERE a.measure = 'face_count') AS n_variations,
           count(DISTINCT a.image_id) FILTER (WHERE f.no_face) AS n_no_face,
           count(DISTINCT a.image_id) FILTER (WHERE f.several) AS n_several,
           median(a.difference) FILTER (WHERE a.measure = 'face_identity_distance') AS median_distance,
           max(a.difference) FILTER (WHERE a.measure = 'face_identity_distance') AS max_distance,
           count(*) FILTER (WHERE a.measure = 'face_identity_distance' AND a.failed) AS n_changed,
           median(a.difference) FILTER (WHERE a.measure = 'identity_cosine') AS median_cosine,
           count(*) FILTER (WHERE a.measure = 'identity_cosine' AND a.failed) AS n_cosine_outliers
    FROM edit_audit AS a LEFT JOIN found AS f USING (image_id)
    GROUP BY GROUPING SETS ((a.feature_key, a.variation_value), ())
    HAVING count(*) FILTER (WHERE a.measure = 'face_count') > 0
    ORDER BY grouping(a.feature_key) DESC, attribute, value_label
    """,
    columns=(
        stub("value_label", "Value"),
        Col("n_variations", "Variations", fmt_integer),
        Col("n_no_face", "No face", fmt_integer),
        Col("n_several", "Several faces", fmt_integer),
        Col("median_distance", "Median distance", number(3)),
        Col("max_distance", "Max distance", number(3)),
        Col("n_changed", "Identity changed", fmt_integer),
        Col("median_cosine", "Median CLIP cosine", number(3)),
        Col("n_cosine_outliers", "CLIP outliers", fmt_integer),
    ),
    group="attribute",
    notes=(
        "Faces found: variations whose base or variation image held no face, or several (the largest "
        "is then the face measured). Distance: the Euclidean distance of the face-recognition "
        "descriptors of the variation's face and its base's; identity changed: over the recogniser's "
        "same-person threshold. CLIP: the cosine of the image embeddings (no threshold; an outlier is "
        "a low robust z within the attribute), shown for comparison; prefer the face-recognition "
        "distance for photographs (docs/faces.md).",
    ),
    notes_sql="""
    SELECT printf('Of %d audited variations, %d had no face or several faces on the variation or its '
                  || 'base; %d of %d changed identity by the face-recognition model; %d moved skin tone '
                  || 'past the bound.',
                  count(*) FILTER (WHERE measure = 'face_count'),
                  count(*) FILTER (WHERE measure = 'face_count' AND failed),
                  count(*) FILTER (WHERE measure = 'face_identity_distance' AND failed),
                  count(*) FILTER (WHERE measure = 'face_identity_distance'),
                  count(*) FILTER (WHERE measure = 'skin_ita' AND failed))
    FROM edit_audit HAVING count(*) FILTER (WHERE measure = 'face_count') > 0
    UNION ALL
    SELECT 'Detector ' || any_value(source) || '.' FROM edit_audit WHERE measure = 'face_count'
    HAVING count(*) > 0
    UNION ALL
    SELECT 'Recogniser ' || any_value(source) || ': same person below a distance of '
           || printf('%.2f', max(bound)) || '.'
    FROM edit_audit WHERE measure = 'face_identity_distance' HAVING count(*) > 0
    """,
    requires=("edit_audit", "face_detection"),
    optional=True,
)

SKIN_BY_ATTRIBUTE = TableSpec(
    key="audit_skin_attribute",
    title="Table A3. Edit audit, face models: skin tone change (ITA°) by attribute",
    sql=f"""
    SELECT s.feature_key, s.variation_value, s.estimate, s.ci_low, s.ci_high, s.n_faces, s.n_edits,
           (SELECT count(*) FROM edit_audit AS a WHERE a.measure = 'skin_ita' AND a.failed
              AND a.feature_key = s.feature_key AND coalesce(a.variation_value, '(none)') = s.variation_value)
             AS n_failed
    FROM audit_skin_tone AS s
    WHERE s.summary = 'attribute' AND s.feature_key <> '{ALL}'
    ORDER BY s.feature_key, s.variation_value
    """,
    columns=(
        stub("variation_value", "Value"),
        Col("estimate", "ΔITA°", number(2)),
        Col("ci_low", CI_LABEL, ci(2), args=("ci_high",)),
        Col("n_faces", "Faces", fmt_integer),
        Col("n_edits", "Edits", fmt_integer),
        Col("n_failed", "Past the bound", fmt_integer),
    ),
    group="feature_key",
    notes=(
        "ΔITA°: the individual typology angle of the face's skin on the variation minus on its base "
        f"(positive = lighter), averaged within each base face, then over faces; {LEVEL} face-level "
        "percentile bootstrap interval (– with a single face). Past the bound: edits whose |ΔITA°| "
        "exceeds the study's ita_bound (never for an attribute whose cue is skin tone).",
    ),
    notes_sql="""
    SELECT 'ita_bound ' || printf('%.1f', max(bound)) || '°.' FROM edit_audit
    WHERE measure = 'skin_ita' HAVING max(bound) IS NOT NULL
    """,
    requires=("audit_skin_tone", "edit_audit"),
    optional=True,
)

SKIN_BY_GROUP = TableSpec(
    key="audit_skin_group",
    title="Table A4. Edit audit, face models: skin tone change (ITA°) by the base face's ethnicity × gender",
    sql=f"""
    SELECT CASE summary WHEN 'group' THEN 'Each group, over every edit'
                ELSE 'Each ethnicity minus all other faces' END AS kind,
           CASE WHEN summary = 'group' THEN ethnicity || ' / ' || gender ELSE ethnicity END AS cell,
           estimate, ci_low, ci_high, n_faces, n_edits
    FROM audit_skin_tone
    WHERE summary IN ('group', 'difference') AND feature_key = '{ALL}'
    ORDER BY summary DESC, ethnicity, gender
    """,
    columns=(
        stub("cell", "Ethnicity / gender"),
        Col("estimate", "ΔITA°", number(2)),
        Col("ci_low", CI_LABEL, ci(2), args=("ci_high",)),
        Col("n_faces", "Faces", fmt_integer),
        Col("n_edits", "Edits", fmt_integer),
    ),
    group="kind",
    notes=(
        "Does the editor lighten some faces more? Each group's mean ΔITA° over all its edits, and each "
        "ethnicity's faces minus all other faces (face-level bootstrap on the same draws): an interval "
        "that excludes 0 says the editor moves that group's skin tone differently. Ethnicity and "
        "gender are the image set's perceived labels of the base face.",
    ),
    notes_sql=f"""
    SELECT printf('%s faces: ΔITA° %s against the other faces ({LEVEL} CI [%s, %s]), an interval that '
                  || 'excludes 0.',
                  ethnicity, {_signed("estimate")}, {_signed("ci_low")}, {_signed("ci_high")})
    FROM audit_skin_tone
    WHERE summary = 'difference' AND feature_key = '{ALL}' AND (ci_low > 0 OR ci_high < 0)
    ORDER BY ethnicity
    """,
    requires=("audit_skin_tone",),
    optional=True,
)


FACE_TABLES: tuple[TableSpec, ...] = (FACE_IDENTITY, SKIN_BY_ATTRIBUTE, SKIN_BY_GROUP)
#: No prose of its own: the counts are Table A2's notes, the group differences Table A4's, so a study
#: without face-model rows shows the section exactly as before.
FACE_TEXTS: tuple[TextSpec, ...] = ()

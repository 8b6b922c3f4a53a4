"""StylisticBias report: counterfactual quality, what ``--min-identity`` drops (Table S12) and what
each identity model dropped (``[audit.faces] identity_filter``, D38; Table S12b).

Table S12: per threshold and attribute, the variations the CLIP cosine drops, the outliers and the
attribute's SBS over all variations and over those kept. Table S12b sits under it: per
``--min-identity`` threshold and attribute, the variations the CLIP cosine drops, those the face
models drop (face-recognition distance past its same-person threshold; no single face on base and
variation), those both drop, and all dropped. It reads the ``n_dropped_*`` columns of
``result_identity_drops``, filled only where the face models joined the run's ``--min-identity``:
the table is optional, so a study without ``identity_filter`` shows nothing new. Nothing is
recomputed here.
"""

from __future__ import annotations

from cueshift.render import Col, TableSpec, fmt_effect, fmt_integer, fmt_number, fmt_text, percent, stub

IDENTITY = TableSpec(
    key="identity_drops",
    title="Table S12. Counterfactual quality: variations each --min-identity threshold drops",
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
           || 'models cannot call the same person: Dropped counts what either model drops (Table S12b: each '
           || 'model''s drops).'
    WHERE EXISTS (SELECT 1 FROM result_identity_drops WHERE n_dropped_both IS NOT NULL)
    """,
    requires=("result_identity_drops",),
    empty="no counterfactual-quality measure: set [quality] encoder in the study file.",
)

IDENTITY_BY_MODEL = TableSpec(
    key="identity_drops_by_model",
    title="Table S12b. Counterfactual quality by identity model: what --min-identity drops, CLIP beside the "
    "face models",
    sql="""
    SELECT printf('cosine < %.2f', threshold) || CASE WHEN applied THEN ' (applied in this run)' ELSE '' END
             AS threshold_label,
           CASE WHEN feature_key = 'all' THEN 'All attributes' ELSE feature_key END AS attribute,
           n_variations, n_dropped_cosine, n_dropped_distance, n_dropped_face_count,
           n_dropped_distance + n_dropped_face_count AS n_dropped_faces, n_dropped_both, n_dropped,
           share_dropped
    FROM result_identity_drops
    WHERE n_dropped_both IS NOT NULL
    ORDER BY threshold, feature_key <> 'all', feature_key
    """,
    columns=(
        stub("attribute", "Attribute"),
        Col("n_variations", "Variations", fmt_integer),
        Col("n_dropped_cosine", "By CLIP cosine", fmt_integer),
        Col("n_dropped_distance", "By face distance", fmt_integer),
        Col("n_dropped_face_count", "No single face", fmt_integer),
        Col("n_dropped_faces", "By face models", fmt_integer),
        Col("n_dropped_both", "By both", fmt_integer),
        Col("n_dropped", "Dropped", fmt_integer),
        Col("share_dropped", "Share dropped", percent(1)),
    ),
    group="threshold_label",
    notes=(
        "With [audit.faces] identity_filter = true, --min-identity drops a variation that either "
        "model rejects (docs/faces.md): its CLIP cosine with the base is below the threshold, or the "
        "face models cannot call it the same person, because the face-recognition distance of the two "
        "faces exceeds the recogniser's same-person threshold (0.6 for dlib-resnet) or the base or "
        "the variation holds no face or several. By face models = by face distance + no single face; "
        "by both: the cosine and a face model; dropped = by CLIP cosine + by face models - by both. "
        "The face models' verdicts are those of the stored edit audit and do not depend on the "
        "threshold.",
    ),
    requires=("result_identity_drops",),
    optional=True,
)

IDENTITY_MODEL_TABLES: tuple[TableSpec, ...] = (IDENTITY_BY_MODEL,)

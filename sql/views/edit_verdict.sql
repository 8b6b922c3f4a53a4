-- edit_verdict: the edit audit's verdict on each audited variation (one row per variation).
--   failed             any measure of the variation failed (cue, unintended change or identity)
--   n_measures         measures audited
--   n_failed_measures  measures that failed
--   failed_measures    their names, comma-separated in name order (NULL when none failed)
--   failed_kinds       the check kinds that failed ('cue', 'unintended', 'identity'), comma-separated
CREATE OR REPLACE VIEW edit_verdict AS
SELECT
    image_id,
    any_value(base_image_id)                                          AS base_image_id,
    any_value(face_id)                                                AS face_id,
    any_value(feature_key)                                            AS feature_key,
    any_value(variation_value)                                        AS variation_value,
    bool_or(failed)                                                   AS failed,
    count(*)                                                          AS n_measures,
    count(*) FILTER (WHERE failed)                                    AS n_failed_measures,
    string_agg(measure, ', ' ORDER BY measure) FILTER (WHERE failed)  AS failed_measures,
    string_agg(DISTINCT check_kind, ', ' ORDER BY check_kind) FILTER (WHERE failed) AS failed_kinds
FROM edit_audit
GROUP BY image_id;

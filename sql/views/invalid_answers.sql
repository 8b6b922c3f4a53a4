-- invalid_answers: how many answers per model x image x ordering were invalid, and why
-- (docs/decisions.md#d2). One row per model, evaluated image and ordering:
--   n_answers     every stored answer (all scenarios and seeds)
--   n_invalid     answers the strict parser refused (outcome = 'invalid')
--   n_refusal     ... of which the parser's reason is 'refusal'
--   n_unrecorded  invalid answers stored without a reason (written before judgment.invalid_reason,
--                 or by a writer that does not record it): their refusal status is unknown
-- Base images have role 'base' and no variation; variations name their base in base_image_id.
CREATE OR REPLACE VIEW invalid_answers AS
-- counted per model x image x ordering first, then labelled: the same rows as grouping the joined
-- judgments by every column, at a third of the cost (29 M judgments; docs/decisions.md#d8)
WITH counted AS (
    SELECT
        model_id,
        image_id,
        ordering,
        count(*)                                                           AS n_answers,
        count(*) FILTER (WHERE outcome = 'invalid')                        AS n_invalid,
        count(*) FILTER (WHERE invalid_reason = 'refusal')                 AS n_refusal,
        count(*) FILTER (WHERE outcome = 'invalid' AND invalid_reason IS NULL) AS n_unrecorded
    FROM judgment
    GROUP BY model_id, image_id, ordering
)
SELECT
    j.model_id,
    img.face_id,
    j.image_id,
    img.role,
    img.base_image_id,
    img.variation_category,
    img.feature_key,
    img.variation_value,
    fc.age,
    fc.gender,
    fc.ethnicity,
    fc.body_type,
    j.ordering,
    j.n_answers,
    j.n_invalid,
    j.n_refusal,
    j.n_unrecorded
FROM counted  AS j
JOIN image    AS img ON img.image_id = j.image_id AND img.evaluated
JOIN face AS fc ON fc.face_id = img.face_id;

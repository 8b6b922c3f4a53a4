-- delta: prediction shift per model x variation image x scenario (seed 000 Eq. 2).
--   Delta_i(x_v) = phi_i(x_v) - phi_i(x_b)
-- x_b is the base image the variation was derived from (image.base_image_id), judged by
-- the same model on the same scenario. Rows where either phi is NULL (no valid answer)
-- are kept with delta NULL so they can be counted; analyses filter them out.
CREATE OR REPLACE VIEW delta AS
SELECT
    v.model_id,
    img.face_id,
    v.image_id,
    img.base_image_id,
    v.scenario_id,
    s.category          AS scenario_category,
    img.variation_category,
    img.feature_key,
    img.variation_value,
    img.framing,
    fc.age,
    fc.gender,
    fc.ethnicity,
    fc.body_type,
    v.phi               AS phi_variation,
    b.phi               AS phi_base,
    v.phi - b.phi       AS delta,
    v.phi_expected - b.phi_expected AS delta_expected,
    v.n_valid           AS n_valid_variation,
    b.n_valid           AS n_valid_base
FROM phi AS v
JOIN image    AS img ON img.image_id = v.image_id AND img.role = 'variation' AND img.evaluated
JOIN phi      AS b   ON b.model_id = v.model_id
                    AND b.scenario_id = v.scenario_id
                    AND b.image_id = img.base_image_id
JOIN face AS fc ON fc.face_id = img.face_id
JOIN scenario AS s   ON s.scenario_id = v.scenario_id;

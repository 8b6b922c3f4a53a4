-- delta_at(T) and base_phi_at(T): the delta and base_phi views (seed 000 Eq. 2) on phi_at(T),
-- phi with answers drawn at temperature T from the stored scores (see phi_at.sql).
-- Usage (DuckDB CLI): SELECT * FROM delta_at(0.2) LIMIT 5;
CREATE OR REPLACE MACRO delta_at(temperature) AS TABLE
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
    v.n_valid           AS n_valid_variation,
    b.n_valid           AS n_valid_base
FROM phi_at(temperature) AS v
JOIN image    AS img ON img.image_id = v.image_id AND img.role = 'variation' AND img.evaluated
JOIN phi_at(temperature) AS b ON b.model_id = v.model_id
                    AND b.scenario_id = v.scenario_id
                    AND b.image_id = img.base_image_id
JOIN face AS fc ON fc.face_id = img.face_id
JOIN scenario AS s   ON s.scenario_id = v.scenario_id;

CREATE OR REPLACE MACRO base_phi_at(temperature) AS TABLE
SELECT
    p.model_id,
    img.face_id,
    p.image_id,
    p.scenario_id,
    s.category      AS scenario_category,
    fc.age,
    fc.gender,
    fc.ethnicity,
    fc.body_type,
    p.n_valid,
    p.n_total,
    p.phi
FROM phi_at(temperature) AS p
JOIN image    AS img ON img.image_id = p.image_id AND img.role = 'base'
JOIN face AS fc ON fc.face_id = img.face_id
JOIN scenario AS s   ON s.scenario_id = p.scenario_id;

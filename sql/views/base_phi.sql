-- base_phi: phi of base (unvaried) images with the face's demographics and the
-- scenario's category: the input of the RQ1 demographic analyses (VS, Kruskal-Wallis).
CREATE OR REPLACE VIEW base_phi AS
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
FROM phi AS p
JOIN image    AS img ON img.image_id = p.image_id AND img.role = 'base'
JOIN face AS fc ON fc.face_id = img.face_id
JOIN scenario AS s   ON s.scenario_id = p.scenario_id;

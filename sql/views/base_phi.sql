-- base_phi: phi of base (unvaried) images with the identity's demographics and the
-- scenario's category: the input of the RQ1 demographic analyses (VS, Kruskal-Wallis).
CREATE OR REPLACE VIEW base_phi AS
SELECT
    p.model_id,
    img.identity_id AS face_id,
    p.image_id,
    p.scenario_id,
    s.category      AS scenario_category,
    idn.age,
    idn.gender,
    idn.ethnicity,
    idn.body_type,
    p.n_valid,
    p.n_total,
    p.phi
FROM phi AS p
JOIN image    AS img ON img.image_id = p.image_id AND img.role = 'base'
JOIN identity AS idn ON idn.identity_id = img.identity_id
JOIN scenario AS s   ON s.scenario_id = p.scenario_id;

-- phi: preference score per model x image x scenario (seed 000 Eq. 1).
--   phi_i(x) = (1 / n_i(x)) * sum_j sum_k r_ijk(x)
-- r = 1 when the parsed answer names the favorable descriptor, whatever the ordering's
-- letter mapping; invalid answers are excluded from n_i(x) but counted in n_total.
-- phi is NULL when no answer of the cell is valid.
-- phi_expected: mean over the cell of the backend's P(favorable) (scoring backends; NULL otherwise).
CREATE OR REPLACE VIEW phi AS
SELECT
    model_id,
    image_id,
    scenario_id,
    count(*)                                          AS n_total,
    count(*) FILTER (WHERE outcome <> 'invalid')      AS n_valid,
    count(*) FILTER (WHERE outcome = 'favorable')     AS n_favorable,
    count(*) FILTER (WHERE outcome = 'favorable')::DOUBLE
        / nullif(count(*) FILTER (WHERE outcome <> 'invalid'), 0) AS phi,
    avg(p_favorable)                                  AS phi_expected
FROM judgment
GROUP BY model_id, image_id, scenario_id;

-- phi_at(T): preference score per model x image x scenario (seed 000 Eq. 1) for scoring
-- backends, with each judgment's answer drawn at temperature T from the two-answer probability
-- the backend stored (p_favorable = P(favorable | favorable or unfavorable) at T = 1):
--   P_T = sigma(logit(p_favorable) / T)   for T > 0
--   P_0 = 1 if p_favorable > 1/2, 0 if < 1/2, 1/2 on a tie      (greedy decoding)
--   phi_at(T) = mean over the cell's scored judgments of P_T
-- T = 1 is phi_expected; seed 000 samples at T = 0.2. Judgments without a p_favorable
-- (generate-mode backends) are not scored: phi is NULL when a cell has none.
-- Usage (DuckDB CLI): SELECT * FROM phi_at(0.2) LIMIT 5;
CREATE OR REPLACE MACRO phi_at(temperature) AS TABLE
SELECT
    model_id,
    image_id,
    scenario_id,
    count(*)                 AS n_total,
    count(p_favorable)       AS n_valid,
    avg(CASE
        WHEN p_favorable IS NULL THEN NULL
        WHEN temperature = 0 THEN
            CASE WHEN p_favorable > 0.5 THEN 1.0 WHEN p_favorable < 0.5 THEN 0.0 ELSE 0.5 END
        WHEN p_favorable <= 0 THEN 0.0
        WHEN p_favorable >= 1 THEN 1.0
        ELSE 1.0 / (1.0 + exp(-(ln(p_favorable) - ln(1.0 - p_favorable)) / temperature))
    END)                     AS phi
FROM judgment
GROUP BY model_id, image_id, scenario_id;

-- invalid_texts: the distinct texts of invalid answers per model x face x scenario x ordering,
-- with the scenario's two descriptors, so an analysis can read which option each would have
-- named (cueshift.inference.parser.named_letter) once per distinct text rather than once per answer.
CREATE OR REPLACE VIEW invalid_texts AS
SELECT
    j.model_id,
    img.face_id,
    j.scenario_id,
    s.favorable,
    s.unfavorable,
    j.ordering,
    j.response_text,
    count(*)         AS n_invalid
FROM judgment AS j
JOIN image    AS img ON img.image_id = j.image_id AND img.evaluated
JOIN scenario AS s   ON s.scenario_id = j.scenario_id
WHERE j.outcome = 'invalid'
GROUP BY ALL;

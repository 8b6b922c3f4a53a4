"""StylisticBias report: the data-quality tables of the judges (S2, S9–S11): the models and their
settings, judgments per model (completeness, invalid answers), the invalid-answer rate per scenario
and the answers per prompt ordering; a cell from :data:`INVALID_FLAG` invalid answers on is shaded.
The study-summary tables (S1, S6–S8) are in :mod:`.summary`.
"""

from __future__ import annotations

from cueshift.render import Col, Pivot, TableSpec, fmt_integer, percent, stub

#: Invalid-answer rate from which a cell is flagged in the data-quality tables.
INVALID_FLAG = 0.05
_FLAG_FILL = "#fde2b8"


def _flag_invalid(value: object) -> str | None:
    return _FLAG_FILL if isinstance(value, int | float) and value >= INVALID_FLAG else None


MODELS = TableSpec(
    key="models",
    title="Table S2. Models (judges) and their settings",
    sql="""
    SELECT model_id, backend, checkpoint, coalesce(revision, '–') AS revision,
           CAST(settings AS VARCHAR) AS settings
    FROM model WHERE list_contains($models, model_id) ORDER BY model_id
    """,
    columns=(
        stub("model_id", "Model"),
        Col("backend", "Backend", align="left"),
        Col("checkpoint", "Checkpoint", align="left"),
        Col("revision", "Revision", align="left"),
        Col("settings", "Settings", align="left"),
    ),
    requires=("model",),
)

JUDGMENTS = TableSpec(
    key="judgments",
    title="Table S9. Judgments per model: completeness and invalid answers",
    sql="""
    WITH plan AS (
      SELECT (SELECT count(*) FROM image WHERE role = 'base' OR evaluated) AS n_images,
             (SELECT count(*) FROM scenario) AS n_scenarios
    ), per_model AS (
      SELECT model_id, count(*) AS n_judgments,
             count(DISTINCT ordering) AS n_orderings, count(DISTINCT seed) AS n_seeds,
             count(*) FILTER (WHERE outcome = 'invalid') AS n_invalid
      FROM judgment WHERE list_contains($models, model_id) GROUP BY model_id
    ), empty_cells AS (
      SELECT model_id, count(*) FILTER (WHERE n_valid = 0) AS n_empty, count(*) AS n_cells
      FROM phi WHERE list_contains($models, model_id) GROUP BY model_id
    )
    SELECT m.model_id, m.n_judgments,
           m.n_judgments / (plan.n_images * plan.n_scenarios * m.n_orderings * m.n_seeds) AS completeness,
           m.n_invalid, m.n_invalid / m.n_judgments AS invalid_rate,
           e.n_empty, e.n_cells
    FROM per_model m JOIN empty_cells e USING (model_id), plan
    ORDER BY m.model_id
    """,
    columns=(
        stub("model_id", "Model"),
        Col("n_judgments", "Judgments", fmt_integer),
        Col("completeness", "Of planned", percent(1)),
        Col("n_invalid", "Invalid", fmt_integer),
        Col("invalid_rate", "Invalid rate", percent(2), fill=_flag_invalid),
        Col("n_cells", "φ cells", fmt_integer),
        Col("n_empty", "Cells without a valid answer", fmt_integer),
    ),
    notes=(
        "Planned = (base + kept variation images) × scenarios × orderings × seeds stored for the model. "
        "A φ cell (model × image × scenario) without any valid answer has no φ and no Δ. "
        f"Shaded: invalid rate ≥ {INVALID_FLAG:.0%}.",
    ),
    requires=("judgment", "image", "scenario", "phi"),
)

INVALID_BY_SCENARIO = TableSpec(
    key="invalid_by_scenario",
    title="Table S10. Invalid-answer rate per scenario and model",
    sql="""
    SELECT s.category, s.favorable || ' / ' || s.unfavorable AS scenario, j.model_id,
           count(*) FILTER (WHERE j.outcome = 'invalid') / count(*) AS invalid_rate
    FROM judgment j JOIN scenario s USING (scenario_id)
    WHERE list_contains($models, j.model_id)
    GROUP BY s.category, s.position, s.favorable, s.unfavorable, j.model_id
    ORDER BY list_position(['Personality & Social', 'Interpersonal', 'Behavioral',
                            'Socioeconomic & Appearance'], s.category), s.category, s.position, j.model_id
    """,
    columns=(stub("scenario", "Scenario (favorable / unfavorable)"),),
    pivot=Pivot(on="model_id", value="invalid_rate", fmt=percent(1), fill=_flag_invalid),
    group="category",
    notes=(f"Share of judgments whose answer the parser rejected. Shaded: ≥ {INVALID_FLAG:.0%}.",),
    requires=("judgment", "scenario"),
)

ORDERINGS = TableSpec(
    key="orderings",
    title="Table S11. Answers per prompt ordering: favorable share and invalid rate",
    sql="""
    SELECT j.model_id, j.ordering,
           CASE WHEN p.favorable_first THEN 'favorable first' ELSE 'unfavorable first' END
             || ', (' || p.favorable_letter || ') = favorable' AS variant,
           count(*) FILTER (WHERE outcome = 'favorable')
             / nullif(count(*) FILTER (WHERE outcome <> 'invalid'), 0) AS favorable_share,
           count(*) FILTER (WHERE outcome = 'invalid') / count(*) AS invalid_rate
    FROM judgment j LEFT JOIN prompt_variant p USING (ordering)
    WHERE list_contains($models, j.model_id)
    GROUP BY ALL ORDER BY j.model_id, j.ordering
    """,
    columns=(
        stub("ordering", "Ordering"),
        Col("variant", "Variant", align="left"),
        Col("favorable_share", "Favorable share (valid answers)", percent(1)),
        Col("invalid_rate", "Invalid rate", percent(2), fill=_flag_invalid),
    ),
    group="model_id",
    notes=("Order/label effects show as favorable shares that differ between orderings of one model.",),
    requires=("judgment", "prompt_variant"),
)

"""StylisticBias report: crossed random effects (faces and scenarios) beside Table 10's face-only
model, with the bootstrap intervals of partial eta^2 and R2."""

from __future__ import annotations

from cueshift.designs.stylisticbias.report.refit_counts import CROSSED_REFITS_SQL
from cueshift.render import (
    CI_LABEL,
    Col,
    FigureSpec,
    TableSpec,
    TextSpec,
    ci,
    fmt_integer,
    number,
    percent,
    stub,
)

_SOURCE_LABELS = "CASE source WHEN 'face' THEN 'Face' WHEN 'scenario' THEN 'Scenario' "
_SOURCE_LABELS += "WHEN 'residual' THEN 'Residual' ELSE 'Fixed effects (categories)' END"

VARIANCE_COMPONENTS = TableSpec(
    key="variance_components",
    title="Table R1. Faces and scenarios as random effects: variance components",
    sql=f"""
    SELECT {_SOURCE_LABELS} AS source, estimate, sd, share, share_random, n_levels
    FROM result_variance_components
    ORDER BY list_position(['face', 'scenario', 'residual', 'fixed'], result_variance_components.source)
    """,
    columns=(
        stub("source", "Source"),
        Col("estimate", "Variance", number(6)),
        Col("sd", "SD", number(4)),
        Col("share", "Share of total", percent(1)),
        Col("share_random", "Share of random part", percent(1)),
        Col("n_levels", "Levels", fmt_integer),
    ),
    notes=(
        "Mixed model of Δ per face × variation category × scenario (pooled over models and values) with "
        "variation and scenario category as fixed effects and crossed random intercepts for face and "
        "scenario, REML. Share of total: variance over face + scenario + residual + fixed-effect "
        "variance (the fixed share is R²m; face + scenario + fixed is R²c); share of random part: over "
        "face + scenario + residual.",
    ),
    notes_sql="""
    SELECT 'N = ' || printf('%,d', max(n)) || ' cells.'
           || CASE WHEN bool_and(converged) THEN '' ELSE ' WARNING: the fit did not converge.' END
    FROM result_variance_components HAVING count(*) > 0
    """,
    requires=("result_variance_components",),
)

_TERM_LABELS = """CASE term WHEN 'variation_category' THEN 'Variation category (η²p)'
                  WHEN 'scenario_category' THEN 'Scenario category (η²p)'
                  WHEN 'R2_marginal' THEN 'R²m' ELSE 'R²c' END"""
_TERM_POS = (
    "list_position(['variation_category', 'scenario_category', 'R2_marginal', 'R2_conditional'], term)"
)

CROSSED_VS_FACE = TableSpec(
    key="crossed_vs_face",
    title="Table R2. Table 10's model with a random face intercept vs crossed face and scenario intercepts",
    sql=f"""
    SELECT {_TERM_LABELS} AS term, {_TERM_POS} AS pos,
           f.estimate AS face_estimate, f.ci_low AS face_low, f.ci_high AS face_high,
           c.estimate AS crossed_estimate, c.ci_low AS crossed_low, c.ci_high AS crossed_high,
           c.statistic AS crossed_f, c.p AS crossed_p
    FROM result_crossed_model c LEFT JOIN result_mixed_model f USING (term)
    ORDER BY pos
    """,
    columns=(
        stub("term", "Quantity"),
        Col("face_estimate", "Face only", number(3)),
        Col("face_low", CI_LABEL, ci(3, signed=False), args=("face_high",)),
        Col("crossed_estimate", "Face + scenario", number(3), p="crossed_p"),
        Col("crossed_low", CI_LABEL, ci(3, signed=False), args=("crossed_high",)),
        Col("crossed_f", "F (crossed)", number(2)),
    ),
    notes=(
        "Face only: Table 10 (cells per face × variation category × scenario category). Face + scenario: "
        "cells per face × variation category × scenario, scenario intercepts crossed with the faces. "
        f"{CI_LABEL}: face-level bootstrap with a REML refit per replicate (scenarios held fixed, so the "
        "intervals do not count the sampling of scenarios), the percentile interval re-centred on the "
        "bias-corrected value, within [0, 1].",
    ),
    notes_sql=f"""
    SELECT printf('%,d', max(n_faces)) || ' faces, ' || max(n_scenarios) || ' scenarios, '
           || printf('%,d', max(n)) || ' cells; ' || {CROSSED_REFITS_SQL} || '.'
           || CASE WHEN bool_and(converged) THEN '' ELSE ' WARNING: the fit did not converge.' END
    FROM result_crossed_model HAVING count(*) > 0
    """,
    requires=("result_crossed_model", "result_mixed_model"),
)

EFFECTS_TABLES: tuple[TableSpec, ...] = (VARIANCE_COMPONENTS, CROSSED_VS_FACE)
EFFECTS_FIGURES: tuple[FigureSpec, ...] = ()
EFFECTS_TEXTS: tuple[TextSpec, ...] = ()

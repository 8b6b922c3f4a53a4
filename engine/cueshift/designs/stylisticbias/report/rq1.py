"""StylisticBias report, RQ1: demographic variation of base-face judgments (Tables 2, 9, 10).

Nothing here recomputes a statistic: each query selects stored estimates and p-values from the
statistics engine's ``result_*`` tables and lays them out; the formatters round for display only.
"""

from __future__ import annotations

from cueshift.designs.stylisticbias.report.labels import (
    DIM_POS,
    DIMENSION_LABELS,
    FACES_PER_GROUP_SQL,
    TEST_LABELS,
    case,
    dimension_pivot,
    model_dimension_sql,
)
from cueshift.designs.stylisticbias.report.refit_counts import ANOVA_RESAMPLES_SQL, MIXED_REFITS_SQL
from cueshift.render import (
    CI_LABEL,
    LEVEL,
    MISSING,
    Col,
    Pivot,
    TableSpec,
    ci,
    estimate_ci,
    fmt_number,
    fmt_pvalue,
    number,
    percent,
    stub,
)


def degrees_of_freedom(df: object, df_resid: object) -> str:
    """An F test's two degrees of freedom as the console prints them in ``F(10, 3586)``: ``10, 3586``
    (a fractional df keeps one decimal; a missing denominator leaves the numerator alone).

    Examples
    --------
    >>> degrees_of_freedom(10.0, 3586.0), degrees_of_freedom(2, 87.4), degrees_of_freedom(3, None)
    ('10, 3586', '2, 87.4', '3')
    """
    values = [float(v) for v in (df, df_resid) if isinstance(v, int | float) and v == v]
    return ", ".join(fmt_number(v, 0 if v.is_integer() else 1) for v in values) or MISSING


TABLE2_VS = TableSpec(
    key="table2_vs",
    title="Table 2. Variation Strength (VS) per model and demographic dimension",
    sql=model_dimension_sql("result_table2_vs", ("ci_low", "ci_high")),
    columns=(stub("model", "Model"),),
    pivot=Pivot(
        on="dimension",
        value="estimate",
        fmt=estimate_ci(3),
        labels=DIMENSION_LABELS,
        order="col_pos",
        args=("ci_low", "ci_high"),
    ),
    notes=(
        f"Each cell: VS [{CI_LABEL}]. VS (Eq. 3): mean over scenarios of the standard deviation across a "
        "dimension's groups of the group-mean base-face φ, bias-corrected: the sampling variance of the "
        "group means is removed before the square root (the paper's plug-in value is stored as "
        "plugin_estimate); 0 ≤ VS ≤ 0.5.",
        f"{CI_LABEL}: not a bootstrap. Per scenario, the image of a simultaneous {LEVEL} confidence "
        "ball for the "
        "group means (F quantile; the lower bound Bonferroni-adjusted over scenarios), its bounds "
        "averaged over scenarios: valid at VS = 0 and conservative (a bootstrap of a mean of standard "
        "deviations under-covers near 0).",
    ),
    notes_sql=f"""
    SELECT 'Scenarios: ' || max(n) || '; standard deviation with ddof = ' || max(ddof)
           || '. Average (all models): the point estimates averaged, without an interval.'
    FROM result_table2_vs HAVING count(*) > 0
    UNION ALL ({FACES_PER_GROUP_SQL})
    """,
    requires=("result_table2_vs", "face", "image"),
)

TABLE9_SIGNIFICANT = TableSpec(
    key="table9_significant",
    title="Table 9. Share of scenarios with a significant demographic difference",
    sql=model_dimension_sql("result_table9"),
    columns=(stub("model", "Model"),),
    pivot=dimension_pivot("estimate", percent(0)),
    notes_sql=f"""
    SELECT 'Tests on base-face φ per scenario: '
           || string_agg({case("test", TEST_LABELS)} || ' (' || dims || ')', ', ' ORDER BY test)
           || '; BH within model × dimension; α = ' || max(alpha) || '; ' || max(n) || ' scenarios.'
    FROM (SELECT test, string_agg(DISTINCT replace(dimension, '_', ' '), ', '
                            ORDER BY replace(dimension, '_', ' ')) AS dims,
                 max(alpha) AS alpha, max(n) AS n
          FROM result_table9 WHERE model_id <> '(mean of models)' GROUP BY test)
    """,
    requires=("result_table9",),
)

TABLE10_ETA = TableSpec(
    key="table10_eta",
    title="Table 10. Partial η² of the key factors: mixed model and face-level ANOVAs",
    sql=f"""
    SELECT * FROM (
      SELECT 'Mixed model (random intercept per face), Δ per face × variation × scenario category'
               AS estimator, 1 AS g,
             CASE term WHEN 'variation_category' THEN 'Variation category'
                       ELSE 'Scenario category' END AS factor,
             CASE term WHEN 'variation_category' THEN 1 ELSE 2 END AS pos,
             df, df_resid, statistic, estimate, ci_low, ci_high, p
      FROM result_mixed_model WHERE test = 'wald-F'
      UNION ALL
      SELECT CASE outcome WHEN 'delta' THEN 'One-way ANOVA, face-level mean Δ'
                          ELSE 'One-way ANOVA, face-level mean base φ' END,
             CASE outcome WHEN 'delta' THEN 2 ELSE 3 END,
             {case("dimension", DIMENSION_LABELS)}, {DIM_POS}, df, df_resid, statistic, estimate, ci_low,
             ci_high, p
      FROM result_face_anova
    ) ORDER BY g, pos
    """,
    columns=(
        stub("factor", "Factor"),
        Col("df", "df", degrees_of_freedom, args=("df_resid",)),
        Col("statistic", "F", number(2)),
        Col("estimate", "η²p", number(3), p="p"),
        Col("ci_low", CI_LABEL, ci(3, signed=False), args=("ci_high",)),
        Col("p", "p", fmt_pvalue),
    ),
    group="estimator",
    notes=(
        "df: the F test's numerator (factor levels − 1) and denominator (residual) degrees of freedom. "
        "Pooled over models (the engine fits these on every analyzed model). "
        f"{CI_LABEL}: face-level bootstrap (faces resampled; the mixed model refitted per replicate), the "
        "percentile interval re-centred on the bias-corrected value (η² and R² are biased upward), "
        "within [0, 1].",
    ),
    notes_sql=f"""
    SELECT 'Mixed model: R²m = ' || printf('%.3f', max(estimate) FILTER (WHERE term = 'R2_marginal'))
           || coalesce(' [' || printf('%.3f', max(ci_low) FILTER (WHERE term = 'R2_marginal')) || ', '
                       || printf('%.3f', max(ci_high) FILTER (WHERE term = 'R2_marginal')) || ']', '')
           || ', R²c = ' || printf('%.3f', max(estimate) FILTER (WHERE term = 'R2_conditional'))
           || coalesce(' [' || printf('%.3f', max(ci_low) FILTER (WHERE term = 'R2_conditional')) || ', '
                       || printf('%.3f', max(ci_high) FILTER (WHERE term = 'R2_conditional')) || ']', '')
           || ' (Nakagawa); N = ' || printf('%,d', max(n)) || ' observations, '
           || printf('%,d', max(n_groups))
           || ' faces; ' || CASE WHEN bool_and(reml) THEN 'REML' ELSE 'ML' END
           || '; ' || {MIXED_REFITS_SQL} || '.'
           || CASE WHEN bool_and(converged) THEN '' ELSE ' WARNING: the fit did not converge.' END
    FROM result_mixed_model HAVING count(*) > 0
    UNION ALL
    SELECT 'ANOVAs: n = ' || printf('%,d', max(n)) || ' faces; ' || {ANOVA_RESAMPLES_SQL} || '.'
    FROM result_face_anova HAVING count(*) > 0
    """,
    requires=("result_mixed_model", "result_face_anova"),
)

RQ1_TABLES: tuple[TableSpec, ...] = (TABLE2_VS, TABLE9_SIGNIFICANT, TABLE10_ETA)

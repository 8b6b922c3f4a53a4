"""The pairwise report's Bradley–Terry strengths of the portraits (``result_pairwise_bradley_terry``):
per model × cohort, the position term and the strengths of the two groups' portraits (Table 3b),
and every portrait's strength with its Wald interval (Figure 1)."""

# ruff: noqa: E501  (declared SQL reads best unwrapped)
from __future__ import annotations

from cueshift.extras import importing
from cueshift.render import (
    CI_LABEL,
    EMPHASIS_LEGEND,
    MODELS_FILTER,
    Col,
    FigureSpec,
    Source,
    TableSpec,
    ci,
    ci_label,
    effect,
    fmt_integer,
    fmt_pvalue,
    stored_level,
    stub,
)

with importing("report", "the report's figures"):
    from matplotlib.figure import Figure

_TABLE_SQL = f"""WITH t AS (SELECT DISTINCT model_id, cohort, target_group FROM result_pairwise_cohort),
         b AS (SELECT b.*, b.stimulus_group = t.target_group AS target
               FROM result_pairwise_bradley_terry b LEFT JOIN t USING (model_id, cohort) WHERE {MODELS_FILTER})
    SELECT model_id, cohort,
           max(estimate) FILTER (WHERE term = 'position') AS position,
           max(ci_low) FILTER (WHERE term = 'position') AS position_low,
           max(ci_high) FILTER (WHERE term = 'position') AS position_high,
           max(p) FILTER (WHERE term = 'position') AS position_p,
           avg(estimate) FILTER (WHERE term <> 'position' AND target) AS target_mean,
           avg(estimate) FILTER (WHERE term <> 'position' AND NOT target) AS other_mean,
           count(*) FILTER (WHERE term <> 'position') AS portraits, max(n) AS n
    FROM b GROUP BY ALL ORDER BY cohort, model_id"""

STRENGTH_TABLES: tuple[TableSpec, ...] = (
    TableSpec(
        key="pairwise_bradley_terry",
        title="Table 3b. Bradley–Terry strengths of the portraits with a position term, per cohort",
        sql=_TABLE_SQL,
        columns=(
            stub("cohort", "Cohort"),
            stub("model_id", "Model"),
            Col("position", "Position h", effect(2), p="position_p"),
            Col("position_low", CI_LABEL, ci(2), args=("position_high",)),
            Col("position_p", "p", fmt_pvalue),
            Col("target_mean", "Mean θ target", effect(2)),
            Col("other_mean", "Mean θ other", effect(2)),
            Col("portraits", "Portraits", fmt_integer),
            Col("n", "n", fmt_integer),
        ),
        notes=(
            "Bradley–Terry model over the cohort's n valid trials: logit P(left wins) = h + θ_left − θ_right, "
            "one strength θ per portrait (centred: the cohort's θ sum to 0), maximum likelihood with "
            "virtual games of each portrait against a strength of 0, half won (how many: below). h: the "
            "log-odds of choosing the left image at equal strength, with its Wald interval and z test "
            "(p unadjusted). Mean θ target / other: the mean strength of the target-group and the other "
            "portraits; each portrait's θ with its Wald interval is in Figure 1. Blank where the fit separates.",
            EMPHASIS_LEGEND,
        ),
        notes_sql=f"""SELECT printf('%g', max(prior_games)) || ' virtual game(s) per portrait; n: '
                        || min(n) || CASE WHEN min(n) < max(n) THEN '–' || max(n) ELSE '' END || ' valid trials per cohort.'
                     FROM result_pairwise_bradley_terry WHERE {MODELS_FILTER} HAVING count(*) > 0""",
        requires=("result_pairwise_bradley_terry", "result_pairwise_cohort"),
    ),
)

_FIGURE_SQL = f"""WITH t AS (SELECT DISTINCT model_id, cohort, target_group FROM result_pairwise_cohort)
    SELECT b.model_id, b.cohort, b.term, b.estimate, b.ci_low, b.ci_high, b.stimulus_group = t.target_group AS target
    FROM result_pairwise_bradley_terry b LEFT JOIN t USING (model_id, cohort)
    WHERE b.term <> 'position' AND b.estimate IS NOT NULL AND {MODELS_FILTER.replace("model_id", "b.model_id")}
    ORDER BY b.cohort, b.model_id, b.estimate"""


def draw_strengths(report: Source) -> Figure | None:
    """Every portrait's Bradley–Terry θ with its Wald interval, one panel per cohort, the portraits
    of each model in rising θ, target-group portraits in red, the others in blue."""
    rows = report.query(_FIGURE_SQL)
    if rows.height == 0:
        return None
    cohorts = list(dict.fromkeys(rows["cohort"].to_list()))
    models = list(dict.fromkeys(sorted(rows["model_id"].to_list())))
    n_cols = min(5, len(cohorts))
    n_rows = -(-len(cohorts) // n_cols)
    fig = Figure(figsize=(2.2 * n_cols + 0.6, 2.1 * n_rows + 0.6))
    axes = fig.subplots(n_rows, n_cols, squeeze=False, sharey=True)
    for k, ax in enumerate(axes.flat):
        if k >= len(cohorts):
            ax.set_visible(False)
            continue
        part = rows.filter(rows["cohort"] == cohorts[k])
        x0 = 0
        for model in models:
            cell = part.filter(part["model_id"] == model)
            points = cell.select("estimate", "ci_low", "ci_high", "target").iter_rows()
            for i, (est, lo, hi, target) in enumerate(points):
                colour = "#c0392b" if target else "#2e6da4"
                ax.errorbar(
                    x0 + i, est, [[est - lo], [hi - est]], fmt="o", ms=2.5, color=colour, elinewidth=0.7
                )
            x0 += cell.height + 2
        ax.axhline(0, color="grey", linewidth=0.4)
        ax.set_title(cohorts[k], fontsize=8)
        ax.set_xticks([])
        ax.tick_params(labelsize=7)
    label = f"θ, Wald {ci_label(stored_level(report, ('result_pairwise_bradley_terry',)))}"
    for ax in axes[:, 0]:
        ax.set_ylabel(label, fontsize=8)
    fig.suptitle("models left to right: " + ", ".join(models), fontsize=8)
    return fig


STRENGTH_FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec(
        "pairwise_strengths",
        "Figure 1. Bradley–Terry strength of every portrait",
        draw_strengths,
        ("result_pairwise_bradley_terry", "result_pairwise_cohort"),
    ),
)

"""The paired report's attractiveness bias within each demographic group (seed 001 §4.3.2, Fig. 5;
``result_paired_attractiveness_by_group``): per group, the scenarios with a significant bias and
those where its bias is the strongest of its dimension's groups (Table 8), and the Kruskal–Wallis H
of every scenario per group (Figure 1, the paper's Fig. 5 for every dimension)."""

# ruff: noqa: E501  (declared SQL reads best unwrapped)
from __future__ import annotations

from cueshift.designs.paired.report_notes import n_note, p_note
from cueshift.extras import importing
from cueshift.render import (
    MODELS_FILTER,
    Col,
    FigureSpec,
    Source,
    TableSpec,
    fmt_integer,
    number,
    stub,
)

with importing("report", "the report's figures"):
    from matplotlib.figure import Figure

_KW = "test = 'kruskal-wallis'"
_SQL = f"""WITH a AS (SELECT max(alpha) AS alpha FROM result_paired_significance_share),
         k AS (SELECT *, statistic = max(statistic) OVER (PARTITION BY model_id, dimension, scenario_id) AS largest
               FROM result_paired_attractiveness_by_group WHERE {_KW} AND {MODELS_FILTER})
    SELECT model_id, dimension, "group", count(*) FILTER (WHERE p_adj < a.alpha) AS n_significant,
           count(*) FILTER (WHERE largest) AS n_largest, count(*) AS n_scenarios, median(statistic) AS median_h
    FROM k CROSS JOIN a GROUP BY ALL ORDER BY model_id, dimension, "group\""""

BY_GROUP_TABLES: tuple[TableSpec, ...] = (
    TableSpec(
        key="paired_by_group",
        title="Table 8. Attractiveness bias within each group (seed 001 §4.3.2, Fig. 5)",
        sql=_SQL,
        columns=(
            stub("model_id", "Model"),
            stub("dimension", "Dimension"),
            stub("group", "Group"),
            Col("n_significant", "Significant", fmt_integer),
            Col("n_largest", "Strongest of the groups", fmt_integer),
            Col("n_scenarios", "Of", fmt_integer),
            Col("median_h", "Median KW H", number(2)),
        ),
        notes=(
            "Kruskal–Wallis H of s, filtered vs original images of the group's individuals, per scenario. "
            "Strongest of the groups: scenarios where the group's H is the largest of its dimension's "
            "groups, significant or not (the paper's 69/91 scenarios stronger for females; ties count for "
            "each); Table 7 counts only the significant. Each scenario's H per group is in Figure 1.",
        ),
        notes_sql=f"""SELECT 'Significant: p < α = ' || printf('%g', max(alpha)) || '.'
                     FROM result_paired_significance_share WHERE {MODELS_FILTER} HAVING count(*) > 0
                     UNION ALL ({p_note("model × test × dimension × group (over scenarios)")})
                     UNION ALL ({n_note("result_paired_attractiveness_by_group", _KW)})""",
        requires=(
            "result_paired_attractiveness_by_group",
            "result_paired_significance_share",
            "result_paired_attractiveness",
        ),
    ),
)

_FIGURE_SQL = f"""SELECT model_id, dimension, "group", scenario_id, statistic FROM result_paired_attractiveness_by_group
    WHERE {_KW} AND statistic IS NOT NULL AND {MODELS_FILTER} ORDER BY model_id, dimension, "group", scenario_id"""
_COLOURS = ("#e67e22", "#2e6da4", "#27ae60", "#8e44ad", "#c0392b", "#7f8c8d", "#16a085", "#d4ac0d")


def draw_by_group(report: Source) -> Figure | None:
    """Kruskal–Wallis H of every scenario per group, one panel per model × dimension, the scenarios
    in rising H of the dimension's first group (alphabetical: female for gender, as seed 001 Fig. 5)."""
    rows = report.query(_FIGURE_SQL)
    if rows.height == 0:
        return None
    panels = list(dict.fromkeys(rows.select("model_id", "dimension").iter_rows()))
    fig = Figure(figsize=(7.0, 2.3 * len(panels) + 0.3))
    axes = fig.subplots(len(panels), 1, squeeze=False)[:, 0]
    for ax, (model, dimension) in zip(axes, panels, strict=True):
        part = rows.filter((rows["model_id"] == model) & (rows["dimension"] == dimension))
        groups = sorted(set(part["group"].to_list()))
        first = part.filter(part["group"] == groups[0]).sort("statistic")
        order = {s: i for i, s in enumerate(first["scenario_id"].to_list())}
        for colour, group in zip(_COLOURS * 4, groups, strict=False):
            cell = part.filter(part["group"] == group)
            x = [order.get(s, len(order)) for s in cell["scenario_id"].to_list()]
            ax.scatter(x, cell["statistic"].to_list(), s=9, color=colour, label=group, linewidths=0)
        ax.set_title(f"{model}: {dimension}", fontsize=8)
        ax.set_ylabel("KW H", fontsize=8)
        ax.set_xticks([])
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=6, ncol=min(len(groups), 6), loc="upper left", frameon=False)
    axes[-1].set_xlabel("scenario, in rising H of the first group", fontsize=8)
    return fig


BY_GROUP_FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec(
        "paired_by_group_h",
        "Figure 1. Attractiveness bias (KW H) per scenario within each group",
        draw_by_group,
        ("result_paired_attractiveness_by_group",),
    ),
)

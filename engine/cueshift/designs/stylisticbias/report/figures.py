"""StylisticBias report figures (seed 000 Figs. 2–5): a SQL query (or several) plus a matplotlib drawing.

Figures read stored results only; what a figure shows (estimates, intervals, r and slope)
is a column of a ``result_*`` table, never recomputed here. Each draw function receives the
open report as a :class:`~cueshift.render.Source`.

The figures are Fig. 2 (:mod:`.figure_cumulative`), Figs. 3 and 4 (here) and Fig. 5
(:mod:`.figure_model_pairs`), in the colours of :mod:`._figure_colours`; :data:`FIGURES` lists them.
"""

from __future__ import annotations

import numpy as np

from cueshift.designs.stylisticbias.report._figure_colours import CATEGORY_COLOURS, _colour, _legend
from cueshift.designs.stylisticbias.report.figure_cumulative import draw_cumulative
from cueshift.designs.stylisticbias.report.figure_model_pairs import draw_model_pairs
from cueshift.extras import importing
from cueshift.render import FigureSpec, Source, ci_label, stored_level
from cueshift.stats import POOLED

with importing("report", "the report's figures"):
    from matplotlib.figure import Figure

_SCENARIO_SQL = f"""
    SELECT r.scenario_id, s.favorable, s.favorable || ' / ' || s.unfavorable AS label, s.category,
           r.estimate, r.ci_low, r.ci_high, r.abs_sbs, r.abs_ci_low, r.abs_ci_high
    FROM result_sbs r JOIN scenario s USING (scenario_id)
    WHERE r.level = 'scenario' AND r.model_id = '{POOLED}'
"""


def draw_scenarios(report: Source) -> Figure | None:
    """Fig. 3: pooled SBS per scenario, sorted ascending, with face-level bootstrap CIs."""
    rows = report.query(_SCENARIO_SQL + " ORDER BY r.estimate")
    if rows.height == 0:
        return None
    fig = Figure(figsize=(7.5, 0.22 * rows.height + 1.2))
    ax = fig.add_subplot()
    y = np.arange(rows.height)
    est = rows["estimate"].to_numpy()
    lo = rows["ci_low"].fill_null(np.nan).to_numpy()
    hi = rows["ci_high"].fill_null(np.nan).to_numpy()
    colours = [_colour(c) for c in rows["category"]]
    ax.hlines(y, lo, hi, color=colours, linewidth=1.6)
    ax.scatter(est, y, color=colours, zorder=3, s=18)
    ax.axvline(0, color="black", linewidth=0.6)
    ax.set_yticks(y, rows["label"].to_list(), fontsize=7)
    ax.set_xlabel(f"SBS (mean Δ, pooled over models) with {ci_label(stored_level(report, ('result_sbs',)))}")
    ax.set_ylim(-0.7, rows.height - 0.3)
    _legend(ax, [c for c in CATEGORY_COLOURS if c in set(rows["category"])], loc="lower right")
    fig.tight_layout()
    return fig


def draw_sbs_vs_abs(report: Source) -> Figure | None:
    """Fig. 4: pooled SBS (x) against |SBS| (y) per scenario, both with their CIs."""
    rows = report.query(_SCENARIO_SQL + " ORDER BY s.position")
    if rows.height == 0:
        return None
    fig = Figure(figsize=(7.0, 5.0))
    ax = fig.add_subplot()
    for row in rows.iter_rows(named=True):
        colour = _colour(row["category"])
        xerr = _err(row["estimate"], row["ci_low"], row["ci_high"])
        yerr = _err(row["abs_sbs"], row["abs_ci_low"], row["abs_ci_high"])
        ax.errorbar(
            row["estimate"],
            row["abs_sbs"],
            xerr=xerr,
            yerr=yerr,
            fmt="o",
            color=colour,
            markersize=4,
            elinewidth=0.8,
            capsize=0,
        )
        ax.annotate(
            row["favorable"],
            (row["estimate"], row["abs_sbs"]),
            fontsize=6.5,
            xytext=(3, 3),
            textcoords="offset points",
        )
    ax.axvline(0, color="black", linewidth=0.6)
    label = ci_label(stored_level(report, ("result_sbs",)))
    ax.set_xlabel(f"SBS (signed mean Δ) with {label}")
    ax.set_ylabel(f"|SBS| (mean absolute cell shift) with {label}")
    _legend(ax, [c for c in CATEGORY_COLOURS if c in set(rows["category"])], loc="upper left")
    fig.tight_layout()
    return fig


def _err(value: float | None, low: float | None, high: float | None) -> list[list[float]] | None:
    if value is None or low is None or high is None:
        return None
    return [[max(value - low, 0.0)], [max(high - value, 0.0)]]


FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec(
        "fig2_cumulative",
        "Figure 2. Cumulative |SBS| by attribute",
        draw_cumulative,
        ("result_cumulative_abs_sbs",),
    ),
    FigureSpec(
        "fig3_scenarios",
        "Figure 3. SBS per scenario with face-level bootstrap CIs",
        draw_scenarios,
        ("result_sbs", "scenario"),
    ),
    FigureSpec(
        "fig4_sbs_abs", "Figure 4. SBS vs |SBS| per scenario", draw_sbs_vs_abs, ("result_sbs", "scenario")
    ),
    FigureSpec(
        "fig5_model_pairs",
        "Figure 5. Model-pair agreement per scenario",
        draw_model_pairs,
        ("result_cross_model", "result_sbs", "scenario"),
        empty="needs at least two models in the report.",
    ),
)

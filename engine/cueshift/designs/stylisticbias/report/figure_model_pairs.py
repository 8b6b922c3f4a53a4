"""StylisticBias report, Fig. 5 (seed 000): per-scenario SBS of each model pair against each other,
with the stored r, slope and fitted line of ``result_cross_model`` and the scenarios whose signs
are reversed with evidence ringed (both SBS significant, D51)."""

from __future__ import annotations

import numpy as np
import polars as pl

from cueshift.designs.stylisticbias.report._figure_colours import CATEGORY_COLOURS, _colour
from cueshift.extras import importing
from cueshift.render import Source, fmt_integer, fmt_number

with importing("report", "the report's figures"):
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

#: Significance level of a sign reversal with evidence (as ``result_cross_model``).
ALPHA = 0.05


def draw_model_pairs(report: Source) -> Figure | None:
    """Fig. 5: per-scenario SBS of each model pair, with the stored r, slope and fitted line;
    scenarios whose signs are reversed with evidence (``result_cross_model``'s rule: both SBS
    significant, each in its own direction; D51) are ringed. Read from ``result_sbs``, so the rings
    of a database analysed before D51 follow the rule too (its stored count, in the title, counted a
    significant paired difference as evidence as well)."""
    pairs = report.query("""
        SELECT model_a, model_b, estimate AS r, slope, intercept, n_sign_reversed,
               n_reversed_significant FROM result_cross_model
        WHERE list_contains($models, model_a) AND list_contains($models, model_b)
        ORDER BY model_a, model_b""")
    if pairs.height == 0:
        return None
    points = report.query("""
        SELECT r.model_id, r.scenario_id, s.category, r.estimate, r.p_adj
        FROM result_sbs r JOIN scenario s USING (scenario_id)
        WHERE r.level = 'scenario' AND list_contains($models, r.model_id)""")
    n = pairs.height
    ncols = min(3, n)
    nrows = -(-n // ncols)
    fig = Figure(figsize=(max(3.1 * ncols, 4.6), 3.0 * nrows))  # one panel: room for the legend
    axes = fig.subplots(nrows, ncols, squeeze=False)
    for k, pair in enumerate(pairs.iter_rows(named=True)):
        ax = axes[k // ncols][k % ncols]
        a = points.filter(pl.col("model_id") == pair["model_a"]).select(
            "scenario_id", "category", x="estimate", p_x="p_adj"
        )
        b = points.filter(pl.col("model_id") == pair["model_b"]).select(
            "scenario_id", y="estimate", p_y="p_adj"
        )
        both = a.join(b, on="scenario_id")
        ax.scatter(both["x"], both["y"], c=[_colour(c) for c in both["category"]], s=14)
        evidence = both.filter(
            (pl.col("x") * pl.col("y") < 0) & (pl.col("p_x") < ALPHA) & (pl.col("p_y") < ALPHA)
        )
        ax.scatter(evidence["x"], evidence["y"], s=60, facecolors="none", edgecolors="black", linewidths=0.8)
        lim = (
            max(
                float(
                    both.select(pl.max_horizontal(pl.col("x").abs(), pl.col("y").abs()).max()).item() or 0.01
                ),
                0.01,
            )
            * 1.1
        )
        grid = np.array([-lim, lim])
        ax.plot(grid, grid, color="#bbbbbb", linestyle="--", linewidth=0.7)
        if pair["slope"] is not None and pair["intercept"] is not None:
            ax.plot(grid, pair["intercept"] + pair["slope"] * grid, color="black", linewidth=0.9)
        ax.set_xlim(-lim, lim)
        ax.set_ylim(-lim, lim)
        ax.axhline(0, color="#dddddd", linewidth=0.5)
        ax.axvline(0, color="#dddddd", linewidth=0.5)
        ax.set_title(
            f"r = {fmt_number(pair['r'], 2)}, slope = {fmt_number(pair['slope'], 2)}\n"
            f"sign reversed {fmt_integer(pair['n_sign_reversed'])}, "
            f"with evidence {fmt_integer(pair['n_reversed_significant'])}",
            fontsize=7,
        )
        ax.set_xlabel(f"mean Δ, {pair['model_a']}", fontsize=7)
        ax.set_ylabel(f"mean Δ, {pair['model_b']}", fontsize=7)
        ax.tick_params(labelsize=6)
    for k in range(n, nrows * ncols):
        axes[k // ncols][k % ncols].set_visible(False)
    present = [c for c in CATEGORY_COLOURS if c in set(points["category"])]
    handles = [Line2D([], [], marker="o", linestyle="", color=_colour(c), label=c) for c in present]
    legend_cols = max(1, min(len(handles), 2 * ncols))  # a single panel fits two labels a row
    legend_rows = -(-len(handles) // legend_cols)
    fig.legend(handles=handles, loc="lower center", ncol=legend_cols, frameon=False, fontsize=7)
    fig.tight_layout(rect=(0, 0.055 * legend_rows / nrows, 1, 1))
    return fig

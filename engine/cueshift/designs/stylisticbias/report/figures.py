"""StylisticBias report figures (seed 000 Figs. 2–5): a SQL query (or several) plus a matplotlib drawing.

Figures read stored results only; what a figure shows (estimates, intervals, r and slope)
is a column of a ``result_*`` table, never recomputed here. Each draw function receives the
open report as a :class:`~cueshift.render.Source`.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from cueshift.extras import importing
from cueshift.render import FigureSpec, Source, fmt_integer, fmt_number, fmt_percent
from cueshift.stats import POOLED

with importing("report", "the report's figures"):
    import matplotlib
    import matplotlib.colors
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

#: One colour per scenario category (seed 000 Table 1 order), shared by every figure.
CATEGORY_COLOURS: dict[str, str] = {
    "Personality & Social": "#4c72b0",
    "Interpersonal": "#55a868",
    "Behavioral": "#dd8452",
    "Socioeconomic & Appearance": "#c44e52",
}
_OTHER = "#8c8c8c"


def _colour(category: object) -> str:
    return CATEGORY_COLOURS.get(str(category), _OTHER)


def _legend(ax: Axes, categories: list[str], loc: str) -> None:
    handles = [Line2D([], [], marker="o", linestyle="", color=_colour(c), label=c) for c in categories]
    ax.legend(handles=handles, frameon=False, fontsize=7, loc=loc)  # type: ignore[call-overload]


def draw_cumulative(report: Source) -> Figure | None:
    """Fig. 2: |SBS| per attribute (pooled), sorted, with the cumulative share and its threshold line."""
    pooled = report.query(f"""
        SELECT rank, variation_category, variation_value, abs_sbs, cumulative_share, n_to_threshold, threshold
        FROM result_cumulative_abs_sbs WHERE model_id = '{POOLED}' ORDER BY rank""")
    if pooled.height == 0:
        return None
    per_model = report.query("""
        SELECT model_id, rank, cumulative_share FROM result_cumulative_abs_sbs
        WHERE list_contains($models, model_id) ORDER BY model_id, rank""")
    threshold = float(pooled["threshold"][0])
    n_to = pooled["n_to_threshold"][0]
    fig = Figure(figsize=(8.5, 4.2))
    ax = fig.add_subplot()
    categories = list(dict.fromkeys(pooled["variation_category"].to_list()))
    palette = _category_palette(categories)
    x = pooled["rank"].to_numpy()
    ax.bar(
        x, pooled["abs_sbs"].to_numpy(), color=[palette[c] for c in pooled["variation_category"]], width=0.8
    )
    ax.set_xticks(x, pooled["variation_value"].to_list(), rotation=90, fontsize=6.5)
    ax.set_ylabel("|SBS| (pooled over models)")
    ax.set_xlim(0.3, x.max() + 0.7)
    twin = ax.twinx()
    for _, part in per_model.group_by("model_id", maintain_order=True):
        twin.plot(part["rank"], part["cumulative_share"], color="#999999", linewidth=0.7, alpha=0.7)
    twin.plot(
        x,
        pooled["cumulative_share"].to_numpy(),
        color="black",
        marker="o",
        markersize=2.5,
        linewidth=1.2,
        label="cumulative share (pooled)",
    )
    twin.axhline(threshold, color="#c44e52", linestyle="--", linewidth=1)
    if n_to is not None:
        twin.axvline(float(n_to) + 0.5, color="#c44e52", linestyle=":", linewidth=1)
        twin.text(
            float(n_to) + 0.7,
            threshold - 0.07,
            f"{n_to} attributes reach {threshold:.0%}",
            color="#c44e52",
            fontsize=8,
        )
    twin.set_ylim(0, 1.02)
    twin.set_ylabel("cumulative share of total |SBS|")
    handles = [Line2D([], [], marker="s", linestyle="", color=palette[c], label=c) for c in categories]
    ax.legend(handles=handles, frameon=False, fontsize=6.5, ncol=2, loc="center right")
    fig.tight_layout()
    return fig


def _category_palette(categories: list[str]) -> dict[str, str]:
    cmap = matplotlib.colormaps["tab20"]
    return {c: matplotlib.colors.to_hex(cmap(i % 20)) for i, c in enumerate(sorted(categories))}


_SCENARIO_SQL = f"""
    SELECT r.scenario_id, s.favorable, s.favorable || ' / ' || s.unfavorable AS label, s.category,
           r.estimate, r.ci_low, r.ci_high, r.abs_sbs, r.abs_ci_low, r.abs_ci_high
    FROM result_sbs r JOIN scenario s USING (scenario_id)
    WHERE r.level = 'scenario' AND r.model_id = '{POOLED}'
"""


def draw_scenarios(report: Source) -> Figure | None:
    """Fig. 3: pooled SBS per scenario, sorted ascending, with face-level bootstrap 95% CIs."""
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
    ax.set_xlabel("SBS (mean Δ, pooled over models) with 95% CI")
    ax.set_ylim(-0.7, rows.height - 0.3)
    _legend(ax, [c for c in CATEGORY_COLOURS if c in set(rows["category"])], loc="lower right")
    fig.tight_layout()
    return fig


def draw_sbs_vs_abs(report: Source) -> Figure | None:
    """Fig. 4: pooled SBS (x) against |SBS| (y) per scenario, both with 95% CIs."""
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
    ax.set_xlabel("SBS (signed mean Δ)")
    ax.set_ylabel("|SBS| (mean absolute cell shift)")
    _legend(ax, [c for c in CATEGORY_COLOURS if c in set(rows["category"])], loc="upper left")
    fig.tight_layout()
    return fig


#: Significance level of a sign reversal with evidence (as ``result_cross_model``).
ALPHA = 0.05


def _err(value: float | None, low: float | None, high: float | None) -> list[list[float]] | None:
    if value is None or low is None or high is None:
        return None
    return [[max(value - low, 0.0)], [max(high - value, 0.0)]]


def draw_model_pairs(report: Source) -> Figure | None:
    """Fig. 5: per-scenario SBS of each model pair, with the stored r, slope and fitted line;
    scenarios whose signs are reversed with evidence (``result_cross_model``'s rule: both SBS
    significant, or their paired difference in ``result_model_differences``) are ringed."""
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
    differences = report.query("""
        SELECT model_a, model_b, scenario_id, p_adj AS p_difference FROM result_model_differences
        WHERE level = 'scenario' AND list_contains($models, model_a) AND list_contains($models, model_b)""")
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
        tested = differences.filter(
            (pl.col("model_a") == pair["model_a"]) & (pl.col("model_b") == pair["model_b"])
        ).select("scenario_id", "p_difference")
        both = a.join(b, on="scenario_id").join(tested, on="scenario_id", how="left")
        ax.scatter(both["x"], both["y"], c=[_colour(c) for c in both["category"]], s=14)
        evidence = both.filter(
            (pl.col("x") * pl.col("y") < 0)
            & (((pl.col("p_x") < ALPHA) & (pl.col("p_y") < ALPHA)) | (pl.col("p_difference") < ALPHA))
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


def cumulative_summary(report: Source) -> str:
    """One sentence on Fig. 2 from ``result_cumulative_abs_sbs`` (empty when there is no pooled row)."""
    row = report.query(
        "SELECT max(n_to_threshold) AS n_to, max(threshold) AS threshold, count(*) AS n "
        f"FROM result_cumulative_abs_sbs WHERE model_id = '{POOLED}'"
    ).row(0, named=True)
    if not row["n"]:
        return ""
    return (
        f"Pooled over models, {fmt_integer(row['n_to'])} of {fmt_integer(row['n'])} attributes "
        f"account for {fmt_percent(row['threshold'])} of the total |SBS|.\n"
    )


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
        ("result_cross_model", "result_sbs", "result_model_differences", "scenario"),
        empty="needs at least two models in the report.",
    ),
)

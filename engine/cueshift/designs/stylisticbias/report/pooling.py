"""Table 11's raw and partially pooled cells together: a shrinkage plot per dimension.

Reads ``result_table11`` only: ``estimate`` (raw) and ``pooled_estimate``, ``shrinkage`` and ``n``
are stored columns (:func:`cueshift.designs.stylisticbias.stats.demographic_variation_table`).
"""

from __future__ import annotations

import numpy as np

from cueshift.extras import importing
from cueshift.render import FigureSpec, Source

with importing("report", "the report's figures"):
    from matplotlib.figure import Figure

_SQL = """
    SELECT dimension, estimate, pooled_estimate, shrinkage, n FROM result_table11
    WHERE estimate IS NOT NULL AND pooled_estimate IS NOT NULL
    ORDER BY dimension, variation_category, variation_value, "group"
"""


def draw_shrinkage(report: Source) -> Figure | None:
    """Raw (x) against pooled (y) mean Δ of every Table 11 cell, one panel per dimension, point
    size by faces and colour by shrinkage; the identity line is no pooling, a cell below it
    (above, for negative Δ) moved towards its variation's estimate over the dimension's groups."""
    rows = report.query(_SQL)
    if rows.height == 0:
        return None
    dimensions = list(dict.fromkeys(rows["dimension"].to_list()))
    fig = Figure(figsize=(3.0 * len(dimensions) + 0.8, 3.2))
    axes = fig.subplots(1, len(dimensions), squeeze=False)[0]
    limit = float(np.nanmax(np.abs(rows.select("estimate", "pooled_estimate").to_numpy()))) * 1.05 or 0.1
    largest = max(float(rows["n"].cast(float).max() or 1.0), 1.0)  # type: ignore[arg-type]
    points = None
    for ax, dim in zip(axes, dimensions, strict=True):
        part = rows.filter(rows["dimension"] == dim)
        points = ax.scatter(
            part["estimate"],
            part["pooled_estimate"],
            s=8 + 40 * np.sqrt(part["n"].to_numpy() / largest),
            c=part["shrinkage"],
            cmap="viridis",
            vmin=0.0,
            vmax=1.0,
            alpha=0.75,
            linewidths=0,
        )
        ax.plot([-limit, limit], [-limit, limit], color="black", linewidth=0.6, linestyle="--")
        ax.axhline(0, color="grey", linewidth=0.4)
        ax.set_xlim(-limit, limit)
        ax.set_ylim(-limit, limit)
        ax.set_title(dim, fontsize=9)
        ax.set_xlabel("raw mean Δ", fontsize=8)
        ax.tick_params(labelsize=7)
    axes[0].set_ylabel("pooled mean Δ (empirical Bayes)", fontsize=8)
    if points is not None:
        fig.colorbar(points, ax=list(axes), label="shrinkage (0 raw, 1 parent)", shrink=0.85)
    return fig


POOLING_FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec(
        "table11_shrinkage",
        "Table 11 shrinkage plot: raw and partially pooled mean Δ per cell",
        draw_shrinkage,
        ("result_table11",),
    ),
)

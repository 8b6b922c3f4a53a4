"""StylisticBias report, Fig. 2 (seed 000): |SBS| per attribute pooled over models, sorted, with
the cumulative share of the total |SBS| and its threshold, and the sentence the report prints under
it (:func:`cumulative_summary`). Both read ``result_cumulative_abs_sbs`` only."""

from __future__ import annotations

from cueshift.extras import importing
from cueshift.render import Source, fmt_integer, fmt_percent
from cueshift.stats import POOLED

with importing("report", "the report's figures"):
    import matplotlib
    import matplotlib.colors
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D


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

"""The colours the StylisticBias report figures share: one per scenario category
(:data:`CATEGORY_COLOURS`, grey for any other) and the legend of those categories."""

from __future__ import annotations

from cueshift.extras import importing

with importing("report", "the report's figures"):
    from matplotlib.axes import Axes
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

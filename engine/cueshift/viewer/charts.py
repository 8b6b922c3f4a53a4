"""Small inline SVG charts: the cumulative-|SBS| Pareto and a scatter.

Drawn as text on the server (no plotting library, no script): a page's chart costs
microseconds and shows in any browser. Templates call them as Jinja globals
(:data:`TEMPLATE_GLOBALS`): a design's page (the probe's score vs human rating) draws its
points with ``{{ scatter(xs, ys, tips, x_label, y_label) | safe }}``.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np

WIDTH, HEIGHT, PAD = 720, 260, 40


def _text(x: float, y: float, text: str, size: int = 11, anchor: str = "middle", extra: str = "") -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" {extra}>'
        f"{html.escape(text)}</text>"
    )


def pareto(labels: Sequence[str], values: Sequence[float], threshold: float = 0.8) -> str:
    """Bars of |SBS| (largest first) and the cumulative share of the total, with the ``threshold`` line.

    The cumulative share after the k-th attribute is :math:`\\sum_{i \\le k} |SBS|_i / \\sum_i |SBS|_i`
    (seed 000 Fig. 4: how few attributes carry most of the shift).
    """
    if not values or sum(values) <= 0:
        return '<p class="empty">No |SBS| to draw.</p>'
    total = float(sum(values))
    cumulative = np.cumsum(values) / total
    n, top = len(values), max(values)
    step = (WIDTH - 2 * PAD) / n
    parts = [
        f'<svg class="chart pareto" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" '
        'role="img" aria-label="cumulative |SBS| Pareto chart">',
        f'<line x1="{PAD}" y1="{HEIGHT - PAD}" x2="{WIDTH - PAD}" y2="{HEIGHT - PAD}" stroke="#444"/>',
    ]
    scale = HEIGHT - 2 * PAD
    for i, (label, value) in enumerate(zip(labels, values, strict=True)):
        h = scale * value / top
        x = PAD + i * step
        parts.append(
            f'<rect x="{x + 1:.1f}" y="{HEIGHT - PAD - h:.1f}" width="{max(step - 2, 1):.1f}" '
            f'height="{h:.1f}" fill="#4c78a8"><title>{html.escape(label)}: {value:.3f}</title></rect>'
        )
    points = " ".join(
        f"{PAD + (i + 0.5) * step:.1f},{HEIGHT - PAD - scale * c:.1f}" for i, c in enumerate(cumulative)
    )
    y_threshold = HEIGHT - PAD - scale * threshold
    parts += [
        f'<polyline points="{points}" fill="none" stroke="#e45756" stroke-width="2"/>',
        f'<line x1="{PAD}" y1="{y_threshold:.1f}" x2="{WIDTH - PAD}" y2="{y_threshold:.1f}" '
        'stroke="#e45756" stroke-dasharray="4 3"/>',
        _text(WIDTH - PAD, y_threshold - 4, f"{threshold:.0%} of total |SBS|", 10, "end"),
        _text(PAD, PAD - 12, f"|SBS| (max {top:.3f}) and cumulative share", 11, "start"),
        _text(WIDTH / 2, HEIGHT - 10, f"{n} attributes, largest |SBS| first", 11),
        "</svg>",
    ]
    return "".join(parts)


def scatter(xs: Sequence[float], ys: Sequence[float], tips: Sequence[str], x_label: str, y_label: str) -> str:
    """A scatter of ``ys`` against ``xs`` (one point per image, ``tips`` shown on hover)."""
    if not xs:
        return '<p class="empty">No points to draw.</p>'
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(ys), max(ys)
    sx = (WIDTH - 2 * PAD) / ((x1 - x0) or 1.0)
    sy = (HEIGHT - 2 * PAD) / ((y1 - y0) or 1.0)
    parts = [
        f'<svg class="chart scatter" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" '
        f'role="img" aria-label="{html.escape(y_label)} against {html.escape(x_label)}">',
        f'<rect x="{PAD}" y="{PAD}" width="{WIDTH - 2 * PAD}" height="{HEIGHT - 2 * PAD}" '
        'fill="none" stroke="#bbb"/>',
    ]
    for x, y, tip in zip(xs, ys, tips, strict=True):
        cx, cy = PAD + (x - x0) * sx, HEIGHT - PAD - (y - y0) * sy
        parts.append(
            f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="3" fill="#4c78a8" fill-opacity="0.7">'
            f"<title>{html.escape(tip)}</title></circle>"
        )
    parts += [
        _text(WIDTH / 2, HEIGHT - 8, f"{x_label} ({x0:.2f} to {x1:.2f})"),
        _text(
            14,
            HEIGHT / 2,
            f"{y_label} ({y0:.2f} to {y1:.2f})",
            extra=f'transform="rotate(-90 14 {HEIGHT / 2})"',
        ),
        "</svg>",
    ]
    return "".join(parts)


#: The charts a template (the viewer's or a design's) may call by name.
TEMPLATE_GLOBALS = {"pareto": pareto, "scatter": scatter}

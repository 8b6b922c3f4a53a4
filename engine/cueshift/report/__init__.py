"""Reports: declared tables rendered to great_tables HTML, typst (PDF) and the console; the renderer.

Public surface::

    from cueshift.report import render_report, TableSpec, Col, Pivot, fmt_pvalue
"""

from __future__ import annotations

from cueshift.report._database import open_for_report, parse_models
from cueshift.report._formats import (
    NOTATION_LEGEND,
    Mark,
    delta_class,
    delta_fill,
    fmt_ci,
    fmt_effect,
    fmt_integer,
    fmt_number,
    fmt_percent,
    fmt_pvalue,
    fmt_pvalue_sci,
    fmt_text,
    significance_mark,
)
from cueshift.report._outputs import raw_markdown, to_gt, to_html, to_markdown, to_rich, to_typst
from cueshift.report._render import DEFAULT_DOCUMENT, FALLBACK, RenderResult, quarto_available, render_report
from cueshift.report._spec import Cell, Col, Pivot, Styled, TableSpec, stub

__all__ = [
    "DEFAULT_DOCUMENT",
    "FALLBACK",
    "NOTATION_LEGEND",
    "Cell",
    "Col",
    "Mark",
    "Pivot",
    "RenderResult",
    "Styled",
    "TableSpec",
    "delta_class",
    "delta_fill",
    "fmt_ci",
    "fmt_effect",
    "fmt_integer",
    "fmt_number",
    "fmt_percent",
    "fmt_pvalue",
    "fmt_pvalue_sci",
    "fmt_text",
    "open_for_report",
    "parse_models",
    "quarto_available",
    "raw_markdown",
    "render_report",
    "significance_mark",
    "stub",
    "to_gt",
    "to_html",
    "to_markdown",
    "to_rich",
    "to_typst",
]

"""Reports: declared tables and figures rendered to great_tables HTML, typst (PDF) and the console.

The report layer is generic machinery: each design declares its :class:`Catalog` (document,
tables, figures, prose) and every report document opens the one facade, :class:`Report`.
Significance marks are computed from stored p-values at render time, in
:mod:`cueshift.render.marks` only.

Public surface::

    from cueshift.render import Report, Catalog, TableSpec, Col, Pivot, stub, render_report
"""

from __future__ import annotations

from cueshift.render._catalog import Catalog, FigureSpec, TextSpec, to_png
from cueshift.render._cells import Cell, Col, Pivot, Styled, stub
from cueshift.render._database import open_for_report, relations
from cueshift.render._display import FigureOutput, MarkdownOutput, TableOutput, not_computed
from cueshift.render._document import Report
from cueshift.render._formats import (
    MISSING,
    NOT_APPLICABLE_FILL,
    PLAIN_MINUS,
    PLAIN_MISSING,
    Formatter,
    ci,
    effect,
    estimate_ci,
    fmt_ci,
    fmt_effect,
    fmt_integer,
    fmt_num,
    fmt_number,
    fmt_percent,
    fmt_percent_ci,
    fmt_text,
    multiple,
    number,
    percent,
    points,
    points_ci,
)
from cueshift.render._levels import (
    CI_LABEL,
    CI_LEVEL,
    FALLBACK_LEVEL,
    LEVEL,
    ci_label,
    fill_level,
    level_percent,
    stored_level,
)
from cueshift.render._methods import (
    StoredMethods,
    TableMethods,
    by_ci_method,
    by_test,
    fill_methods,
    scoped,
    stored_methods,
)
from cueshift.render._outputs import raw_markdown, to_gt, to_html, to_markdown, to_rich, to_typst
from cueshift.render._pandoc import FALLBACK
from cueshift.render._paths import DEFAULT_OUT, REPORTS_DIR
from cueshift.render._preamble import SIMULATED_MODELS_SQL, simulated_models, simulated_warning
from cueshift.render._pvalues import fmt_p, fmt_pvalue, fmt_pvalue_sci
from cueshift.render._render import RenderResult, quarto_available, render_report
from cueshift.render._source import Source
from cueshift.render._spec import MODELS_FILTER, TableSpec
from cueshift.render.marks import (
    EMPHASIS_LEGEND,
    EMPHASIS_LEGEND_MD,
    STARS_LEGEND,
    STARS_LEGEND_MD,
    Mark,
    Marks,
    Notation,
    marks,
    significance_mark,
    stars,
)
from cueshift.store.model_subset import parse_models

__all__ = [
    "CI_LABEL",
    "CI_LEVEL",
    "FALLBACK_LEVEL",
    "DEFAULT_OUT",
    "EMPHASIS_LEGEND",
    "EMPHASIS_LEGEND_MD",
    "FALLBACK",
    "LEVEL",
    "MISSING",
    "MODELS_FILTER",
    "NOT_APPLICABLE_FILL",
    "PLAIN_MINUS",
    "PLAIN_MISSING",
    "REPORTS_DIR",
    "SIMULATED_MODELS_SQL",
    "STARS_LEGEND",
    "STARS_LEGEND_MD",
    "Catalog",
    "Cell",
    "Col",
    "FigureOutput",
    "FigureSpec",
    "Formatter",
    "Mark",
    "MarkdownOutput",
    "Marks",
    "Notation",
    "Pivot",
    "RenderResult",
    "Report",
    "Source",
    "StoredMethods",
    "Styled",
    "TableOutput",
    "TableMethods",
    "TableSpec",
    "TextSpec",
    "by_ci_method",
    "by_test",
    "ci",
    "ci_label",
    "effect",
    "estimate_ci",
    "fill_level",
    "fill_methods",
    "fmt_ci",
    "fmt_effect",
    "fmt_integer",
    "fmt_num",
    "fmt_number",
    "fmt_p",
    "fmt_percent",
    "fmt_percent_ci",
    "fmt_pvalue",
    "fmt_pvalue_sci",
    "fmt_text",
    "level_percent",
    "marks",
    "multiple",
    "not_computed",
    "number",
    "open_for_report",
    "parse_models",
    "percent",
    "points",
    "points_ci",
    "quarto_available",
    "raw_markdown",
    "scoped",
    "stored_level",
    "stored_methods",
    "relations",
    "render_report",
    "significance_mark",
    "simulated_models",
    "simulated_warning",
    "stars",
    "stub",
    "to_gt",
    "to_html",
    "to_markdown",
    "to_png",
    "to_rich",
    "to_typst",
]

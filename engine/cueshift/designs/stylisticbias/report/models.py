"""StylisticBias report: model comparisons with error bars: paired SBS differences, clustered
standard errors, design effects, sign reversals with evidence."""

from __future__ import annotations

from cueshift.report import FigureSpec, TableSpec, TextSpec

MODELS_TABLES: tuple[TableSpec, ...] = ()
MODELS_FIGURES: tuple[FigureSpec, ...] = ()
MODELS_TEXTS: tuple[TextSpec, ...] = ()

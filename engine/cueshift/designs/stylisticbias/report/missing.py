"""StylisticBias report: missing answers: invalid and refusal rates per group x variation x model,
and their shifts."""

from __future__ import annotations

from cueshift.report import FigureSpec, TableSpec, TextSpec

MISSING_TABLES: tuple[TableSpec, ...] = ()
MISSING_FIGURES: tuple[FigureSpec, ...] = ()
MISSING_TEXTS: tuple[TextSpec, ...] = ()

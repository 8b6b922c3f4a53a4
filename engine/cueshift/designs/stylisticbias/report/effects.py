"""StylisticBias report: crossed random effects (faces and scenarios) and the bootstrap intervals
of Table 4's contrast, partial eta^2 and R2."""

from __future__ import annotations

from cueshift.report import FigureSpec, TableSpec, TextSpec

EFFECTS_TABLES: tuple[TableSpec, ...] = ()
EFFECTS_FIGURES: tuple[FigureSpec, ...] = ()
EFFECTS_TEXTS: tuple[TextSpec, ...] = ()

"""StylisticBias report: crossed demographic subgroups (e.g. age x gender) and per-model versions
of Tables 2, 3, 9 and 11."""

from __future__ import annotations

from cueshift.report import FigureSpec, TableSpec, TextSpec

SUBGROUPS_TABLES: tuple[TableSpec, ...] = ()
SUBGROUPS_FIGURES: tuple[FigureSpec, ...] = ()
SUBGROUPS_TEXTS: tuple[TextSpec, ...] = ()

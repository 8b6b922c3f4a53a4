"""StylisticBias report: the noise floor: placebo variations (pixel-identical copy, lossless re-
encode) as a negative control."""

from __future__ import annotations

from cueshift.report import FigureSpec, TableSpec, TextSpec

NOISE_TABLES: tuple[TableSpec, ...] = ()
NOISE_FIGURES: tuple[FigureSpec, ...] = ()
NOISE_TEXTS: tuple[TextSpec, ...] = ()

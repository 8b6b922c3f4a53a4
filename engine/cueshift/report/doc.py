"""The helper a report's Python cells use: open the study DB once, show declared tables and figures.

Inside ``reports/study.qmd``::

    from cueshift.report.doc import Report
    report = Report.open(db, models)
    report.table("judgments")          # a declared table (HTML in HTML, a typst table in PDF)
    report.figure("fig3_scenarios")    # a matplotlib figure as PNG

A table or figure whose source table is missing (``cueshift analyze`` not run) shows an
explicit "not computed" note instead of failing. Every output is a Jupyter display object
whose ``text/markdown`` form carries both an ``{=html}`` and a ``{=typst}`` raw block, so the
same executed cell serves the HTML and the PDF document (with or without Quarto).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from cueshift.report import _outputs
from cueshift.report._database import open_for_report, relations
from cueshift.report._formats import fmt_integer, fmt_percent
from cueshift.report._spec import Styled, TableSpec
from cueshift.report.figures import FIGURES, FigureSpec


def registry() -> dict[str, TableSpec]:
    """Every declared table by key (summary and result tables)."""
    from cueshift.report.catalog import SUMMARY_TABLES
    from cueshift.report.catalog_results import RESULT_TABLES

    return {spec.key: spec for spec in (*SUMMARY_TABLES, *RESULT_TABLES)}


@dataclass(frozen=True)
class TableOutput:
    """A rendered table as a Jupyter display object (HTML and typst as raw markdown blocks)."""

    styled: Styled

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        html = _outputs.to_html(self.styled)
        return {
            "text/markdown": _outputs.raw_markdown(self.styled, html=html),
            "text/html": html,
            "text/plain": "\n".join("  ".join(r) for r in self.styled.texts()),
        }


@dataclass(frozen=True)
class MarkdownOutput:
    """Markdown text as a display object (rendered as markdown by Quarto and the fallback)."""

    text: str

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"text/markdown": self.text, "text/plain": self.text}


@dataclass(frozen=True)
class FigureOutput:
    """A PNG figure as a display object."""

    png: bytes

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"image/png": base64.b64encode(self.png).decode("ascii"), "text/plain": "<figure>"}


def not_computed(what: str, tables: Sequence[str]) -> MarkdownOutput:
    """The note shown in place of an output whose source tables are missing."""
    return MarkdownOutput(
        f"> **Not computed:** {what} needs `{'`, `'.join(tables)}`, which this database lacks. "
        "Run `cueshift analyze` to compute it.\n"
    )


class Report:
    """A study database opened read-only for one report, with the model subset applied."""

    def __init__(
        self, con: duckdb.DuckDBPyConnection, path: Path, selected: list[str], available: list[str]
    ) -> None:
        self.con = con
        self.path = path
        self.models = selected
        self.available = available
        self._relations = relations(con)

    @classmethod
    def open(cls, db: str | Path, models: str | Sequence[str] | None = None) -> Report:
        """Open ``db`` (read-only) for a report; raise :class:`~cueshift.errors.CueshiftError` if unusable."""
        con, selected, available = open_for_report(db, models)
        return cls(con, Path(db), selected, available)

    @property
    def subset(self) -> bool:
        """True when the report covers fewer models than the database holds."""
        return len(self.models) < len(self.available)

    @property
    def params(self) -> dict[str, object]:
        """Query parameters: ``$models`` is the model subset."""
        return {"models": self.models}

    def has(self, *names: str) -> bool:
        """Whether every named table or view exists."""
        return all(n in self._relations for n in names)

    def missing(self, names: Sequence[str]) -> list[str]:
        return [n for n in names if n not in self._relations]

    def query(self, sql: str, params: Mapping[str, object] | None = None) -> pl.DataFrame:
        """Run a query with ``$models`` bound when it is used."""
        merged = {**self.params, **(params or {})}
        bound = {k: v for k, v in merged.items() if f"${k}" in sql}
        frame: pl.DataFrame = self.con.sql(sql, params=bound or None).pl()
        return frame

    def value(self, sql: str, params: Mapping[str, object] | None = None) -> Any:
        """The single value of a one-row, one-column query (``None`` when no row)."""
        frame = self.query(sql, params)
        return frame.item(0, 0) if frame.height else None

    def styled(self, key: str) -> Styled:
        """The formatted table ``key`` (raises when its source tables are missing)."""
        return registry()[key].render(self.con, self.params)

    def table(self, key: str) -> TableOutput | MarkdownOutput:
        """Display object of the declared table ``key`` (or a "not computed" note)."""
        spec = registry()[key]
        gone = self.missing(spec.requires)
        if gone:
            return not_computed(f"“{spec.title}”", gone)
        styled = spec.render(self.con, self.params)
        if styled.n_rows == 0:
            return MarkdownOutput(f"> **{spec.title}:** {spec.empty}\n")
        return TableOutput(styled)

    def figure(self, key: str) -> FigureOutput | MarkdownOutput:
        """Display object of the declared figure ``key`` (or a "not computed" note)."""
        spec: FigureSpec = FIGURES[key]
        gone = self.missing(spec.requires)
        if gone:
            return not_computed(f"figure “{spec.title}”", gone)
        png = spec.render(self)
        if png is None:
            return MarkdownOutput(f"> **{spec.title}:** {spec.empty}\n")
        return FigureOutput(png)

    def preamble(self) -> str:
        """Opening paragraph: database, models covered, simulated-judge warning, notation."""
        models = ", ".join(f"`{m}`" for m in self.models)
        lines = [f"Study database: `{self.path.name}`. Models in this report: {models}."]
        if self.subset:
            lines.append(
                "This report covers a subset of the database's models. Per-model rows are filtered; "
                "rows pooled over models and averages over models are the statistics engine's, "
                "computed over every model it analyzed."
            )
        simulated = self.query(
            "SELECT list(model_id ORDER BY model_id) FROM model "
            "WHERE backend = 'simulated' AND list_contains($models, model_id)"
        ).item(0, 0)
        simulated = list(simulated) if simulated is not None else []
        if simulated:
            lines.append(
                "> **Simulated judges.** "
                + ", ".join(f"`{m}`" for m in simulated)
                + " use the *simulated* backend (a seeded generative judge with planted effects): "
                "the numbers test the pipeline and the statistics and say nothing about any real model."
            )
        lines.append(
            "Every number below is read from the database at render time. Notation: **bold** p < 0.001; "
            "[underlined]{.underline}: not significant (p ≥ 0.05); otherwise p < 0.05 "
            "(Benjamini–Hochberg adjusted p-values where the engine stores them)."
        )
        return "\n\n".join(lines) + "\n"

    def cumulative_summary(self) -> str:
        """One sentence on Fig. 2 from ``result_cumulative_abs_sbs`` (empty when not computed)."""
        if not self.has("result_cumulative_abs_sbs"):
            return ""
        row = self.query(
            "SELECT max(n_to_threshold) AS n_to, max(threshold) AS threshold, count(*) AS n "
            "FROM result_cumulative_abs_sbs WHERE model_id = '(pooled)'"
        ).row(0, named=True)
        if not row["n"]:
            return ""
        return (
            f"Pooled over models, {fmt_integer(row['n_to'])} of {fmt_integer(row['n'])} attributes "
            "account for "
            f"{fmt_percent(row['threshold'])} of the total |SBS|.\n"
        )

    def md(self, text: str) -> MarkdownOutput:
        """Markdown prose (numbers in it come from :meth:`value` and the formatters)."""
        return MarkdownOutput(text)

    def close(self) -> None:
        self.con.close()

"""The report facade: what every report document's Python cells use, whatever the design.

Inside a report document (``reports/*.qmd``)::

    from cueshift.designs.paired.report import CATALOG
    from cueshift.render import Report

    report = Report.open(db, models, CATALOG)
    report.preamble()                 # database, models, simulated-judge warning, notation
    report.table("paired_halo")       # a declared table (HTML in HTML, a typst table in PDF)
    report.figure("fig3_scenarios")   # a declared figure, as PNG
    report.close()

A table, figure or text whose source tables are missing (``cueshift analyze`` not run) shows
an explicit "not computed" note instead of failing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import duckdb
import polars as pl

from cueshift.render._catalog import Catalog
from cueshift.render._cells import Styled
from cueshift.render._database import open_for_report, relations
from cueshift.render._display import FigureOutput, MarkdownOutput, TableOutput, not_computed
from cueshift.render._preamble import ReportPreamble
from cueshift.render._spec import bound_params
from cueshift.store.result_version import OUTSIDE_ANALYZE


class Report(ReportPreamble):
    """A study database opened read-only for one report, with the model subset and the design's catalog
    (its opening paragraphs: :class:`~cueshift.render._preamble.ReportPreamble`)."""

    def __init__(
        self,
        con: duckdb.DuckDBPyConnection,
        path: Path,
        selected: Sequence[str],
        available: Sequence[str],
        catalog: Catalog,
    ) -> None:
        self.con = con
        self.path = path
        self.models = list(selected)
        self.available = list(available)
        self.catalog = catalog
        self._relations = relations(con)

    @classmethod
    def open(cls, db: str | Path, models: str | Sequence[str] | None, catalog: Catalog) -> Report:
        """Open ``db`` read-only for a report of ``catalog``.

        Raises
        ------
        CueshiftError
            The database is unusable or the subset names an unknown model (one line).
        """
        con, selected, available = open_for_report(db, models)
        return cls(con, Path(db), selected, available, catalog)

    def __enter__(self) -> Report:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

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
        """The named tables or views the database lacks."""
        return [n for n in names if n not in self._relations]

    def query(self, sql: str, params: Mapping[str, object] | None = None) -> pl.DataFrame:
        """Run a query with ``$models`` bound when it is used."""
        merged = {**self.params, **(params or {})}
        frame: pl.DataFrame = self.con.sql(sql, params=bound_params(sql, merged)).pl()
        return frame

    def value(self, sql: str, params: Mapping[str, object] | None = None) -> Any:
        """The single value of a one-row, one-column query (``None`` when no row)."""
        frame = self.query(sql, params)
        return frame.item(0, 0) if frame.height else None

    def styled(self, key: str) -> Styled:
        """The formatted table ``key`` (raises when its source tables are missing)."""
        return self.catalog.table(key).render(self.con, self.params)

    def table(self, key: str) -> TableOutput | MarkdownOutput:
        """Display object of the declared table ``key`` (or a "not computed" note; nothing for an
        optional table without rows)."""
        spec = self.catalog.table(key)
        gone = self.missing(spec.requires)
        if gone:
            return MarkdownOutput("") if spec.optional else self._absent(f"“{spec.title}”", gone)
        styled = spec.render(self.con, self.params)
        if styled.n_rows == 0:
            return MarkdownOutput("" if spec.optional else f"> **{spec.title}:** {spec.empty}\n")
        return TableOutput(styled)

    def figure(self, key: str) -> FigureOutput | MarkdownOutput:
        """Display object of the declared figure ``key`` (or a "not computed" note)."""
        spec = self.catalog.figure(key)
        gone = self.missing(spec.requires)
        if gone:
            return self._absent(f"figure “{spec.title}”", gone)
        png = spec.render(self)
        if png is None:
            return MarkdownOutput(f"> **{spec.title}:** {spec.empty}\n")
        return FigureOutput(png)

    def _absent(self, what: str, gone: Sequence[str]) -> MarkdownOutput:
        """The note for an output whose source tables are missing: analyses not run yet, or (when
        ``cueshift analyze`` ran and wrote ``result_manifest``) analyses that do not apply to the
        study, which ``analyze`` skipped with a printed reason."""
        skipped = self.has("result_manifest") and all(
            name.startswith("result_") and name not in OUTSIDE_ANALYZE for name in gone
        )
        if not skipped:
            return not_computed(what, gone)
        return MarkdownOutput(
            f"> **Not applicable:** {what} needs `{'`, `'.join(gone)}`, which `cueshift analyze` did not "
            "write: the study lacks its inputs (e.g. placebos, fashion-style variations, a `[quality]` "
            "encoder); `cueshift analyze` printed the reason.\n"
        )

    def text(self, key: str) -> MarkdownOutput:
        """The declared prose ``key`` (empty when its source tables are missing)."""
        spec = self.catalog.text(key)
        return MarkdownOutput("" if self.missing(spec.requires) else spec.write(self))

    def outputs(self, name: str) -> list[TableOutput | FigureOutput | MarkdownOutput]:
        """The display objects of catalog section ``name``, in order (see :meth:`section`)."""
        shown: list[TableOutput | FigureOutput | MarkdownOutput] = []
        for key in self.catalog.section(name):
            kind = self.catalog.kind(key)
            if kind == "table":
                shown.append(self.table(key))
            else:
                shown.append(self.figure(key) if kind == "figure" else self.text(key))
        return shown or [MarkdownOutput(f"> No results are declared for section “{name}”.\n")]

    def section(self, name: str) -> None:
        """Display every table, figure and text of catalog section ``name`` in one document cell."""
        from IPython.display import display  # a report cell runs in a Jupyter kernel

        for output in self.outputs(name):
            display(output)  # type: ignore[no-untyped-call]

    def md(self, text: str) -> MarkdownOutput:
        """Markdown prose (numbers in it come from :meth:`value` and the formatters)."""
        return MarkdownOutput(text)

    def close(self) -> None:
        """Close the database connection."""
        self.con.close()

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
from cueshift.render._spec import bound_params
from cueshift.views import parse_phi

#: Backends whose judges are simulated: ``simulated`` and ``simulated-designs`` (``infer.backends``).
SIMULATED_PREFIX = "simulated"


class Report:
    """A study database opened read-only for one report, with the model subset and the design's catalog."""

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
        skipped = self.has("result_manifest") and all(name.startswith("result_") for name in gone)
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

    def simulated_models(self) -> list[str]:
        """The report's models whose backend is simulated, in model order."""
        frame = self.query(
            "SELECT model_id FROM model WHERE starts_with(backend, $prefix) "
            "AND list_contains($models, model_id) ORDER BY model_id",
            {"prefix": SIMULATED_PREFIX},
        )
        return [str(m) for m in frame["model_id"]]

    def preamble(self) -> MarkdownOutput:
        """Opening paragraphs: database, models covered, simulated-judge warning, notation."""
        models = ", ".join(f"`{m}`" for m in self.models)
        lines = [f"Study database: `{self.path.name}`. Models in this report: {models}."]
        if self.subset:
            lines.append(
                "This report covers a subset of the database's models. Per-model rows are filtered; "
                "rows pooled over models and averages over models are the statistics engine's, "
                "computed over every model it analyzed."
            )
        simulated = self.simulated_models()
        if simulated:
            lines.append(
                "> **Simulated judges.** "
                + ", ".join(f"`{m}`" for m in simulated)
                + " use a *simulated* backend (a seeded generative judge with planted effects): "
                "the numbers test the pipeline and the statistics and say nothing about any real model."
            )
        phi = self.phi_choice()
        if phi:
            lines.append(f"The analyses read {phi}.")
        plan = self.prereg_line()
        if plan:
            lines.append(plan)
        if self.compat_release():
            lines.append(
                "Replication mode is on (`cueshift analyze --compat release`): the seed release's own "
                "choices are reproduced in the `result_release_*` tables beside the default ones, and "
                "`result_compat_differences` names each cell where the two differ and the choice causing it."
            )
        question = self.generalise()
        if question:
            lines.append(question)
        lines.append(
            " ".join(
                ["Every number below is read from the database at render time.", self.catalog.notation]
            ).strip()
        )
        return MarkdownOutput("\n\n".join(lines) + "\n")

    def prereg_line(self) -> str:
        """The preregistered plan the stored analyses followed (``cueshift analyze --prereg``), its
        SHA-256 and whether the run departed from it; empty when they followed none."""
        if not self.has("result_manifest"):
            return ""
        if "prereg_sha256" not in self.query("SELECT * FROM result_manifest LIMIT 0").columns:
            return ""
        rows = self.query(
            "SELECT DISTINCT prereg_sha256, exploratory FROM result_manifest WHERE prereg_sha256 IS NOT NULL"
        )
        if rows.height == 0:
            return ""
        digest, exploratory = rows.row(0)
        if exploratory:
            return (
                f"> **Exploratory.** These analyses depart from the preregistered plan SHA-256 `{digest}` "
                "(`cueshift analyze --prereg ... --exploratory`): read them as exploratory, not confirmatory."
            )
        return f"Preregistered: these analyses ran exactly the plan with SHA-256 `{digest}` (`--prereg`)."

    def phi_choice(self) -> str:
        """Which φ the stored analyses read (``cueshift analyze --phi``), as a phrase; empty when the
        database records none."""
        if not self.has("result_manifest"):
            return ""
        columns = self.query("SELECT * FROM result_manifest LIMIT 0").columns
        if "phi" not in columns:
            return ""
        labels = sorted(str(v) for v in self.query("SELECT DISTINCT phi FROM result_manifest")["phi"])
        return "; ".join(parse_phi(label).describe for label in labels)

    def compat_release(self) -> bool:
        """Whether the stored analyses ran in replication mode (``cueshift analyze --compat release``)."""
        if not self.has("result_manifest"):
            return False
        if "compat" not in self.query("SELECT * FROM result_manifest LIMIT 0").columns:
            return False
        return bool(self.query("SELECT count(*) AS n FROM result_manifest WHERE compat = 'release'")["n"][0])

    def generalise(self) -> str:
        """Which question the stored SBS intervals answer (``cueshift analyze --generalise``), as a
        sentence; empty when the database records none."""
        if not self.has("result_manifest"):
            return ""
        if "generalise" not in self.query("SELECT * FROM result_manifest LIMIT 0").columns:
            return ""
        rows = self.query("SELECT generalise FROM result_manifest WHERE name = 'sbs'")["generalise"]
        if rows.len() == 0:
            return ""
        if rows[0] == "faces+scenarios":
            return (
                "SBS intervals of rows that average over scenarios generalise over faces *and* scenarios "
                "(`cueshift analyze --generalise faces+scenarios`: faces and scenarios resampled together, "
                "a crossed bootstrap): they answer what the shift is for scenarios in general, not only "
                "these. Rows of one scenario, and the other tables, resample faces only."
            )
        return (
            "Intervals resample faces and hold the study's scenarios fixed (`cueshift analyze "
            "--generalise faces`, the default): they answer what the shift is for these scenarios; "
            "`--generalise faces+scenarios` widens the SBS intervals to scenarios in general."
        )

    def md(self, text: str) -> MarkdownOutput:
        """Markdown prose (numbers in it come from :meth:`value` and the formatters)."""
        return MarkdownOutput(text)

    def close(self) -> None:
        """Close the database connection."""
        self.con.close()

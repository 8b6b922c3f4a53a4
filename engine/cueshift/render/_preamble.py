"""The opening paragraphs of a report (:meth:`ReportPreamble.preamble`): database, models, the
simulated-judge warning, and what the stored analyses chose (φ, a preregistered plan, replication
mode, the question the intervals answer), read from ``result_manifest``;
:class:`~cueshift.render._document.Report` inherits them."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb
import polars as pl

from cueshift.render._catalog import Catalog
from cueshift.render._display import MarkdownOutput
from cueshift.render._pandoc import running_header
from cueshift.views import parse_phi

#: Backends whose judges are simulated: ``simulated`` and ``simulated-designs`` (``infer.backends``).
SIMULATED_PREFIX = "simulated"
#: SQL: the models of ``$models`` whose backend is simulated, in model order.
SIMULATED_MODELS_SQL = (
    f"SELECT model_id FROM model WHERE starts_with(backend, '{SIMULATED_PREFIX}') "
    "AND list_contains($models, model_id) ORDER BY model_id"
)


def simulated_models(con: duckdb.DuckDBPyConnection, models: Sequence[str]) -> list[str]:
    """The ``models`` whose backend is simulated (none where the database has no model table)."""
    found = con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = 'model'"
    ).fetchall()
    if not found or found[0][0] == 0:
        return []
    return [str(r[0]) for r in con.execute(SIMULATED_MODELS_SQL, {"models": list(models)}).fetchall()]


def simulated_warning(names: Sequence[str], quote: Callable[[str], str] = str) -> str:
    """What the report's preamble and the analyze console say of simulated judges ``names``.

    Examples
    --------
    >>> simulated_warning(["sim-a"])[:48]
    'sim-a use a simulated backend (a seeded generati'
    """
    return (
        ", ".join(quote(m) for m in names)
        + " use a simulated backend (a seeded generative judge with planted effects): the numbers test "
        "the pipeline and the statistics and say nothing about any real model."
    )


class ReportPreamble:
    """The preamble of :class:`~cueshift.render._document.Report` and the manifest reads it prints."""

    path: Path
    models: list[str]
    catalog: Catalog

    if TYPE_CHECKING:  # defined by Report

        @property
        def subset(self) -> bool: ...

        def has(self, *names: str) -> bool: ...

        def query(self, sql: str, params: Mapping[str, object] | None = None) -> pl.DataFrame: ...

    def simulated_models(self) -> list[str]:
        """The report's models whose backend is simulated, in model order."""
        frame = self.query(SIMULATED_MODELS_SQL)
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
            lines.append("> **Simulated judges.** " + simulated_warning(simulated, lambda m: f"`{m}`"))
            names = ", ".join(simulated)
            lines.append(
                running_header(f"Simulated judges ({names}): the numbers say nothing about real models")
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

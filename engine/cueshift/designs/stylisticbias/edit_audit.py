"""The edit audit in ``cueshift analyze --audit strict|report``: read, applied, counted.

The audit itself (``edit_audit``: one row per variation × measure — the intended cue, the
unintended changes, identity preservation) is measured by ``cueshift audit``
(:func:`cueshift.designs.audit.measure_edit_audit`; measured here first when nothing is stored);
here its rows for the study's evaluated variations are read and folded to one verdict per variation
(:func:`~cueshift.designs.stylisticbias.stats.audit_variations`). ``strict`` leaves the
variations that failed any measure out of every Δ row the analyses read (like ``--min-identity``,
with which it combines); both modes write ``result_audit_sensitivity``.
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb
import polars as pl
from rich.console import Console

from cueshift.designs.stylisticbias.stats import audit_variations
from cueshift.errors import ConfigError
from cueshift.study.config import Study
from cueshift.views import PLACEBO_FEATURE_KEY

#: The columns that name a variation in a Δ row.
_CELLS = ["face_id", "feature_key", "variation_value"]
#: The study's evaluated variations (placebos left out): what the audit covers.
_EVALUATED = (
    "SELECT image_id FROM image WHERE role = 'variation' AND evaluated "
    f"AND lower(coalesce(feature_key, '')) <> '{PLACEBO_FEATURE_KEY}'"
)


@dataclass(frozen=True)
class EditAudit:
    """The edit audit an analysis run reads.

    Attributes
    ----------
    mode
        ``--audit``: ``'strict'`` (failed edits left out of the Δ rows) or ``'report'``.
    variations
        One row per audited variation (:func:`audit_variations`): ``failed``, ``reason`` and the
        differences of its unintended measures.
    confounds
        The unintended measures (columns of ``variations``).
    n_evaluated
        Evaluated variations of the study (placebos left out): the denominator of the summary.
    """

    mode: str
    variations: pl.DataFrame
    confounds: tuple[str, ...]
    n_evaluated: int

    @property
    def n_failed(self) -> int:
        """Variations that failed at least one measure."""
        return int(self.variations["failed"].sum())

    def kept(self, delta: pl.DataFrame) -> pl.DataFrame:
        """The Δ rows the run analyses: without the failed variations' rows under ``strict``,
        every row under ``report``."""
        if self.mode != "strict":
            return delta
        failed = self.variations.filter(pl.col("failed")).select(_CELLS)
        return delta.join(failed, on=_CELLS, how="anti", nulls_equal=True) if failed.height else delta


def load_edit_audit(
    con: duckdb.DuckDBPyConnection,
    study: Study,
    design: object,
    mode: str,
    *,
    console: Console,
    progress: bool,
    write: bool,
) -> EditAudit:
    """The stored edit audit; when none is stored for the study's variations it is measured
    first, as ``cueshift audit`` does (and stored when ``write``)."""
    from cueshift.designs.audit import stored_or_measured

    stored = read_stored_rows(con)
    rows = stored_or_measured(con, study, design, stored, console=console, progress=progress, write=write)
    return read_edit_audit(con, mode, rows)


def read_edit_audit(con: duckdb.DuckDBPyConnection, mode: str, rows: pl.DataFrame | None = None) -> EditAudit:
    """The edit audit of the study's evaluated variations: ``rows`` (``edit_audit`` rows), by
    default the stored ones.

    Raises
    ------
    ConfigError
        No audit row for any evaluated variation (one line: run ``cueshift audit``).
    """
    n_evaluated = int(con.execute(f"SELECT count(*) FROM ({_EVALUATED})").fetchall()[0][0])
    if rows is None:
        rows = read_stored_rows(con)
    else:
        evaluated = [r[0] for r in con.execute(_EVALUATED).fetchall()]
        rows = rows.filter(pl.col("image_id").is_in(evaluated))
    if rows.height == 0:
        raise ConfigError("no edit audit stored: run `cueshift audit` first")
    variations, confounds = audit_variations(rows)
    return EditAudit(mode, variations, confounds, n_evaluated)


def read_stored_rows(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """The stored ``edit_audit`` rows of the study's evaluated variations (empty without any)."""
    if not _has_table(con, "edit_audit"):
        return pl.DataFrame()
    query = f"SELECT * FROM edit_audit WHERE image_id IN ({_EVALUATED}) ORDER BY image_id, measure"
    frame = pl.from_arrow(con.sql(query).to_arrow_table())
    assert isinstance(frame, pl.DataFrame)
    return frame


def evaluated_variations(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Image ids of the study's evaluated variations (placebos left out): what the audit covers."""
    return [str(row[0]) for row in con.execute(f"{_EVALUATED} ORDER BY image_id").fetchall()]


def _has_table(con: duckdb.DuckDBPyConnection, table: str) -> bool:
    found = con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'main' AND table_name = ?",
        [table],
    ).fetchall()
    return bool(found[0][0])


__all__ = ["EditAudit", "evaluated_variations", "load_edit_audit", "read_edit_audit", "read_stored_rows"]

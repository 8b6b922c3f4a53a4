"""The edit audit in ``cueshift analyze --audit strict|report``: read, applied, counted.

The audit itself (``edit_audit``: one row per variation × measure — the intended cue, the
unintended changes, identity preservation) is measured by ``cueshift audit``; here its rows for
the study's evaluated variations are read and folded to one verdict per variation
(:func:`~cueshift.designs.stylisticbias.stats.audit_variations`). ``strict`` leaves the
variations that failed any measure out of every Δ row the analyses read (like ``--min-identity``,
with which it combines); both modes write ``result_audit_sensitivity``.
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb
import polars as pl

from cueshift.designs.stylisticbias.stats import audit_variations
from cueshift.errors import ConfigError
from cueshift.views import PLACEBO_FEATURE_KEY

#: The columns that name a variation in a Δ row.
_CELLS = ["face_id", "feature_key", "variation_value"]


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


def read_edit_audit(con: duckdb.DuckDBPyConnection, mode: str) -> EditAudit:
    """The stored edit audit of the study's evaluated variations.

    Raises
    ------
    ConfigError
        No ``edit_audit`` row for any evaluated variation (one line: run ``cueshift audit``).
    """
    evaluated = (
        "SELECT image_id FROM image WHERE role = 'variation' AND evaluated "
        f"AND lower(coalesce(feature_key, '')) <> '{PLACEBO_FEATURE_KEY}'"
    )
    n_evaluated = int(con.execute(f"SELECT count(*) FROM ({evaluated})").fetchall()[0][0])
    rows = pl.DataFrame()
    if _has_table(con, "edit_audit"):
        rows = pl.from_arrow(  # type: ignore[assignment]
            con.sql(
                f"SELECT * FROM edit_audit WHERE image_id IN ({evaluated}) ORDER BY image_id, measure"
            ).to_arrow_table()
        )
    if rows.height == 0:
        raise ConfigError("no edit audit stored: run `cueshift audit` first")
    variations, confounds = audit_variations(rows)
    return EditAudit(mode, variations, confounds, n_evaluated)


def _has_table(con: duckdb.DuckDBPyConnection, table: str) -> bool:
    found = con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'main' AND table_name = ?",
        [table],
    ).fetchall()
    return bool(found[0][0])


__all__ = ["EditAudit", "read_edit_audit"]

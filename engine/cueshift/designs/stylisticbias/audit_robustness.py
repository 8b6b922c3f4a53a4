"""The robustness of the edit audit's shifts as every output reads it (D40, D46, D47).

``result_audit_sensitivity`` holds, per model (and pooled) × attribute, two SBS with their
robustness value and benchmark bound: over every edit (``all_*``) and over the audited edits
(``audited_*``). The outputs show those of the SBS the run reports, the audited edits under
``--audit strict`` and every edit under ``report``: :func:`reported` picks them per row,
:func:`least_robust` the least robust significant shift. The report's summary
(:mod:`.report.audit`), the console line after ``cueshift analyze`` (:mod:`.console_audit`) and
the viewer's failed-edits page (:mod:`cueshift.viewer.audit_robustness`) read them here, so all three show
the same numbers. A table stored before a column existed gives nulls for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

from cueshift.stats import POOLED

#: The columns of each set the outputs read, without the set's prefix (``all_``, ``audited_``).
COLUMNS: tuple[str, ...] = (
    "sbs",
    "ci_low",
    "ci_high",
    "rv",
    "rv_alpha",
    "bound_confound",
    "bound_from",
    "bound_sbs",
    "bound_ci_low",
    "bound_ci_high",
)


def reported(rows: pl.DataFrame) -> pl.DataFrame:
    """``rows`` of ``result_audit_sensitivity`` with :data:`COLUMNS` unprefixed: those of the
    audited edits where the row's ``audit`` is ``'strict'``, of every edit otherwise (null where
    the stored table lacks the column).

    Examples
    --------
    >>> rows = pl.DataFrame({"audit": ["strict", "report"], "all_rv": [0.3, 0.4], "audited_rv": [0.1, 0.2]})
    >>> reported(rows)["rv"].to_list()
    [0.1, 0.4]
    """
    strict = pl.col("audit") == "strict" if "audit" in rows.columns else pl.lit(False)

    def stored(name: str) -> pl.Expr:
        if name in rows.columns:
            return pl.col(name)
        return pl.lit(None, dtype=pl.String if name.endswith("confound") else pl.Float64)

    return rows.with_columns(
        pl.when(strict).then(stored(f"audited_{c}")).otherwise(stored(f"all_{c}")).alias(c) for c in COLUMNS
    )


@dataclass(frozen=True)
class Robustness:
    """How robust the shifts of an audit run are: ``n_significant`` of ``n_shifts`` (those with a
    robustness value) significant in their face-level t test, and the ``least`` robust of those
    (its row, :data:`COLUMNS` of the reported set unprefixed; None when none is significant)."""

    n_shifts: int
    n_significant: int
    least: dict[str, Any] | None

    @property
    def model(self) -> str:
        """The least robust shift's model, ``'pooled over models'`` for the pooled row."""
        model = "" if self.least is None else str(self.least["model_id"])
        return "pooled over models" if model == POOLED else model


def least_robust(rows: pl.DataFrame) -> Robustness | None:
    """The least robust significant shift of ``rows`` (``result_audit_sensitivity``): the smallest
    RV among the shifts with RV_α > 0, ties by model and attribute (None: no row has an RV).

    Examples
    --------
    >>> rows = pl.DataFrame({"model_id": ["m", "m", "m"], "feature_key": ["a", "b", "c"],
    ...                      "audit": "report", "all_rv": [0.3, 0.1, 0.05], "all_rv_alpha": [0.2, 0.02, 0.0]})
    >>> found = least_robust(rows)
    >>> (found.n_significant, found.n_shifts, found.least["feature_key"], found.model)
    (2, 3, 'b', 'm')
    """
    if "all_rv" not in rows.columns:  # stored before the robustness values (D40)
        return None
    shifts = reported(rows.filter(pl.col("all_rv").is_not_null()))
    if shifts.height == 0:
        return None
    significant = shifts.filter(pl.col("rv_alpha") > 0).sort("rv", "model_id", "feature_key", nulls_last=True)
    least = significant.row(0, named=True) if significant.height else None
    return Robustness(n_shifts=shifts.height, n_significant=significant.height, least=least)

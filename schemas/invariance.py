"""The table ``cueshift check-invariance`` writes: ``result_invariance``, one row per model ×
comparison (docs/invariance.md). It is not a table of an analysis of the suite (``cueshift analyze``
neither writes nor drops it); :func:`validate_invariance` checks a frame and names the first bad
row and field.
"""

from __future__ import annotations

from typing import Final

import pandera.errors as pa_errors
import pandera.polars as pa
import polars as pl

from cueshift.errors import SchemaViolation
from cueshift.schemas._result_base import ResultModel, count, nullable, one_of, share
from cueshift.schemas.results import nan_to_null

#: The level of ``phi_diff``'s face-clustered interval: ``cueshift check-invariance`` computes it at
#: this one level (it has no option for another), and the report and the console head it with it.
INVARIANCE_LEVEL: Final = 0.95
#: What the stored answers are compared with (docs/invariance.md).
COMPARISONS = ("one_at_a_time", "batched", "score")


class InvarianceSchema(ResultModel):
    """``result_invariance``: the sampled stored judgments of one model re-asked one way.

    ``comparison``: ``one_at_a_time`` (one judgment per call, ``batch_size`` 1), ``batched``
    (the run's batch composition and size again), ``score`` (score mode's greedy answer, for a
    generate run). ``share_identical`` and ``kappa`` compare the outcomes (favorable, unfavorable,
    invalid); ``batch_size`` the rows per forward pass or ``generate`` call (1 one at a time;
    the transformers setting batched, null where unknown: ``"auto"``, other backends); ``phi_*``
    is the share favorable (invalid counted as not favorable), ``phi_diff`` re-asked minus stored
    with its face-clustered interval at :data:`INVARIANCE_LEVEL`; ``max_abs_p_diff`` the largest
    change of ``p_favorable`` (scoring backends). ``flagged``: a ``checked`` comparison whose
    ``share_identical`` is below ``bound``.
    """

    model_id: str
    comparison: str = one_of(*COMPARISONS)
    mode: str
    batch_size: pl.Int64 | None = pa.Field(nullable=True, ge=1)
    n: pl.Int64 = count()
    n_identical: pl.Int64 = count()
    share_identical: float = pa.Field(ge=0.0, le=1.0)
    kappa: float | None = pa.Field(nullable=True, ge=-1.0, le=1.0)
    phi_stored: float = pa.Field(ge=0.0, le=1.0)
    phi_reasked: float = pa.Field(ge=0.0, le=1.0)
    phi_diff: float = pa.Field(ge=-1.0, le=1.0)
    phi_diff_ci_low: float | None = nullable()
    phi_diff_ci_high: float | None = nullable()
    max_abs_p_diff: float | None = pa.Field(nullable=True, ge=0.0)
    bound: float = share()
    checked: bool
    flagged: bool


def validate_invariance(frame: pl.DataFrame) -> pl.DataFrame:
    """Check ``frame`` against :class:`InvarianceSchema` (NaN becomes null first).

    Raises
    ------
    SchemaViolation
        One line naming the table, the first bad row and field and the broken check.
    """
    try:
        return InvarianceSchema.validate(nan_to_null(frame), lazy=True)
    except pa_errors.SchemaErrors as exc:
        first = exc.failure_cases.row(0, named=True)
        more = f" (+{exc.failure_cases.height - 1} more)" if exc.failure_cases.height > 1 else ""
        where = f"row {first.get('index')}, field {first.get('column')!r}"
        value = first.get("failure_case")
        raise SchemaViolation(
            f"result_invariance: {where}: value {value!r} breaks {first.get('check')}{more}"
        ) from None


__all__ = ["COMPARISONS", "INVARIANCE_LEVEL", "InvarianceSchema", "validate_invariance"]

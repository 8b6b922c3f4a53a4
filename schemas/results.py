"""Contracts of the analysis results: every ``result_<name>`` table of every design, and the check.

Each design declares its tables in its own module (``results_stylisticbias``, ``results_paired``,
``results_pairwise``, ``results_probe``); :data:`RESULT_SCHEMAS` maps every table name (without
the ``result_`` prefix) to its model, and :func:`validate_result` checks a frame against it before
it is stored, so reports, SQL and the console read checked numbers. Column names are fixed across
tables: ``estimate, ci_low, ci_high, statistic, df, p_value, p_adj, n`` plus grouping columns;
the invariants every table keeps (p in [0, 1], ``p_adj >= p_value``, ``ci_low <= ci_high``,
counts ≥ 0) live in :mod:`cueshift.schemas._result_base`. Significance marks are not stored:
they are drawn from ``p_adj`` / ``p_value`` when a table is rendered.
"""

from __future__ import annotations

import pandera.errors as pa_errors
import pandera.polars as pa
import polars as pl

from cueshift.errors import SchemaViolation
from cueshift.schemas._result_base import CHECK_FIELDS, ResultModel
from cueshift.schemas.results_paired import PAIRED_RESULTS
from cueshift.schemas.results_pairwise import PAIRWISE_RESULTS
from cueshift.schemas.results_probe import PROBE_RESULTS
from cueshift.schemas.results_stylisticbias import STYLISTICBIAS_RESULTS

#: Bumped when a result table's columns change (written to ``result_manifest``).
#: 2: the ``stars`` column left ``result_paired_halo``; the design tables got schemas.
#: 3: ``result_manifest.phi`` (which φ the analyses read: ``cueshift analyze --phi``).
#: 4: ``result_manifest.min_identity`` (variations below it left out: ``cueshift analyze --min-identity``).
#: 5: ``result_manifest.compat`` (``cueshift analyze --compat``) and the ``release_*`` tables.
#: 6: ``result_manifest.generalise`` (``cueshift analyze --generalise``).
#: 7: ``result_manifest.audit`` (``cueshift analyze --audit``) and ``result_audit_sensitivity``.
RESULT_SCHEMA_VERSION = 7


class AnalysisManifestSchema(ResultModel):
    """``result_manifest``: one row per written result table: what it is and how it was made."""

    name: str = pa.Field(unique=True)
    table: str
    description: str
    source: str
    grouping: str
    statistic: str
    family: str
    n_rows: pl.Int64 = pa.Field(ge=0)
    n_resamples: pl.Int64 = pa.Field(ge=0)
    seed: pl.Int64 = pa.Field(nullable=True)
    test: str
    ci_method: str
    models: str
    phi: str
    min_identity: float | None = pa.Field(nullable=True, ge=-1.0, le=1.0)
    compat: str = pa.Field(isin=["default", "release"])
    generalise: str = pa.Field(isin=["faces", "faces+scenarios"])
    audit: str | None = pa.Field(nullable=True, isin=["strict", "report"])
    schema_version: pl.Int64 = pa.Field(ge=1)
    seconds: float = pa.Field(ge=0.0)
    created_at: str


#: The result tables of each design by their name within the design.
RESULT_SCHEMAS_BY_DESIGN: dict[str, dict[str, type[ResultModel]]] = {
    "stylisticbias": STYLISTICBIAS_RESULTS,
    "paired": PAIRED_RESULTS,
    "pairwise": PAIRWISE_RESULTS,
    "probe": PROBE_RESULTS,
}

#: Every result table by name: ``result_<name>``. StylisticBias names are unprefixed (``sbs``),
#: the other designs' carry the design (``paired_attractiveness``); ``manifest`` is the index.
RESULT_SCHEMAS: dict[str, type[ResultModel]] = {
    **STYLISTICBIAS_RESULTS,
    **{
        f"{design}_{name}": model
        for design in ("paired", "pairwise", "probe")
        for name, model in RESULT_SCHEMAS_BY_DESIGN[design].items()
    },
    "manifest": AnalysisManifestSchema,
}


def nan_to_null(frame: pl.DataFrame) -> pl.DataFrame:
    """Float NaN (an undefined statistic) as null: how a missing number is stored."""
    floats = [c for c, t in frame.schema.items() if t in (pl.Float64, pl.Float32)]
    return frame.with_columns([pl.col(c).fill_nan(None) for c in floats]) if floats else frame


def validate_result(name: str, frame: pl.DataFrame) -> pl.DataFrame:
    """Check ``frame`` against the schema of ``result_<name>`` and return it as it is stored.

    Float NaN (an undefined statistic) becomes null first; then the columns, their dtypes and
    the invariants are checked.

    Parameters
    ----------
    name : str
        A key of :data:`RESULT_SCHEMAS` (the table name without ``result_``).
    frame : polars.DataFrame
        The analysis output.

    Returns
    -------
    polars.DataFrame
        ``frame`` with NaN as null.

    Raises
    ------
    SchemaViolation
        One line naming the table, the first bad row and field, the value and the broken check
        (and how many more failures there are); or that no schema is declared for ``name``.
    """
    model = RESULT_SCHEMAS.get(name)
    if model is None:
        raise SchemaViolation(f"result_{name}: no schema declared in cueshift.schemas.results")
    stored = nan_to_null(frame)
    try:
        return model.validate(stored, lazy=True)
    except pa_errors.SchemaErrors as exc:
        raise SchemaViolation(_describe(name, stored, exc.failure_cases)) from None
    except pa_errors.SchemaError as exc:  # pragma: no cover - lazy validation collects errors
        raise SchemaViolation(f"result_{name}: {str(exc).splitlines()[0]}") from None


def _describe(name: str, frame: pl.DataFrame, failures: pl.DataFrame) -> str:
    """One line for the first failure: ``result_<name>: row R, field 'F': value V breaks CHECK``."""
    first = failures.row(0, named=True)
    more = f" (+{failures.height - 1} more)" if failures.height > 1 else ""
    check = str(first["check"])
    field = CHECK_FIELDS.get(check, str(first["column"]))
    row = first.get("index")
    if check == "column_in_schema":
        return f"result_{name}: field '{first['failure_case']}' is not a column of the table{more}"
    if check == "column_in_dataframe":
        return f"result_{name}: field '{first['failure_case']}' is missing{more}"
    if row is None or field not in frame.columns:
        return f"result_{name}: field '{field}': {check} fails (found {first['failure_case']}){more}"
    value = frame[field][int(row)]
    return f"result_{name}: row {row}, field '{field}': value {value!r} breaks {check}{more}"

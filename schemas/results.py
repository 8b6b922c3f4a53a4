"""Contracts of the analysis results: every ``result_<name>`` table of every design, and the check.

A design declares its tables through the design protocol
(:attr:`~cueshift.designs.protocol.Design.result_schemas`): the design registry hands them to
:func:`declare_result_schemas` when it finds the design, or, when this check is not loaded yet,
as it loads (:mod:`cueshift._result_declarations`: reading a study file loads no pandera, D90). The built-in designs keep theirs in
``schemas/results_<design>.py`` (``RESULT_TABLES``), found here by that name so a statistic is
checked even where no registry was built. :data:`RESULT_SCHEMAS` maps every table name (without
the ``result_`` prefix) to its model, and :func:`validate_result` checks a frame against it before
it is stored, so reports, SQL and the console read checked numbers. Column names are fixed across
tables: ``estimate, ci_low, ci_high, statistic, df, p, p_adj, n`` plus grouping columns;
the invariants every table keeps (p in [0, 1], ``p_adj >= p``, ``ci_low <= ci_high``,
counts ≥ 0) live in :mod:`cueshift.schemas._result_base`. Significance marks are not stored:
they are drawn from ``p_adj`` / ``p`` when a table is rendered.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping

import pandera.errors as pa_errors
import pandera.polars as pa
import polars as pl

import cueshift.schemas
from cueshift import _result_declarations
from cueshift.errors import SchemaViolation
from cueshift.schemas._result_base import CHECK_FIELDS, ResultModel

#: Bumped when a result table's columns change, or what a column holds (written to ``result_manifest``).
#: 2: the ``stars`` column left ``result_paired_halo``; the design tables got schemas.
#: 3: ``result_manifest.phi`` (which φ the analyses read: ``cueshift analyze --phi``).
#: 4: ``result_manifest.min_identity`` (variations below it left out: ``cueshift analyze --min-identity``).
#: 5: ``result_manifest.compat`` (``cueshift analyze --compat``) and the ``release_*`` tables.
#: 6: ``result_manifest.generalise`` (``cueshift analyze --generalise``).
#: 7: ``result_manifest.audit`` (``cueshift analyze --audit``) and ``result_audit_sensitivity``.
#: 8: the p-value column is ``p`` (was ``p_value``; ``f_p``, ``pixels_p``, ``partial_p`` likewise),
#:    the name the statistics on a frame use (docs/decisions.md D29).
#: 9: ``result_manifest.prereg_sha256`` and ``exploratory`` (``cueshift analyze --prereg``).
#: 10: ``result_equivalence.dimension`` (the VS rows, ``quantity = 'vs'``; ``variation_category``
#:     null there).
#: 11: ``result_audit_sensitivity`` gets the robustness values of its SBS (``all_rv``,
#:     ``all_rv_alpha``, ``all_partial_r2`` and the ``audited_`` ones; the report reads them).
#: 12: ``result_probe_baselines`` gets each model's difference from its random twin (``twin_*``)
#:     and ``verdict``.
#: 13: ``result_identity_drops`` counts who dropped what (``n_dropped_cosine``, ``n_dropped_distance``,
#:     ``n_dropped_face_count``, ``n_dropped_both``; ``[audit.faces] identity_filter``, D38).
#: 14: ``result_multiverse`` gets ``path`` (the release's own analysis path as one specification)
#:     and claims of kind ``sbs_category``; ``result_multiverse_summary`` gets ``release_verdict``
#:     and ``holds_release`` (D42).
#: 15: ``result_audit_sensitivity`` gets the benchmark bound of its ``all`` and ``audited`` SBS
#:     (``<set>_bound_confound``, ``_from``, ``_r2dz``, ``_r2yz``, ``_sbs``, ``_ci_low``,
#:     ``_ci_high``: an unmeasured side effect as strong as the strongest measured one, D46).
#: 16: ``result_manifest.confidence_level`` (the level of the intervals, which the report's labels
#:     read, D63), and new meanings (the statistical review): a sign reversal counts only when both
#:     opposite signs are significant (``sign_reversal``, ``n_reversed_significant``, D51); a test
#:     undefined on constant data is NaN and leaves its BH family (Table 9's counts, the face ANOVAs,
#:     D49, D52); a mixed-model interval's ``n_refits`` counts the refits it rests on, failed
#:     draws left out (D62). Results of version 15 are refused by the readers, so no report mixes them.
#: 17: ``result_probe_scale_regression`` gets the cluster-robust (by model) inference of its terms
#:     (``cluster_se``, ``cluster_ci_low``, ``cluster_ci_high``, ``cluster_p``, ``n_clusters``);
#:     ``result_probe_size_summary`` and ``result_probe_size_effect`` (seed 004 Table 1).
#: 18: ``result_probe_scale_regression``'s cluster columns are CR2 with Satterthwaite df per term
#:     (were CR1 with k − 1 df): ``cluster_df`` and ``cluster_reason`` (why they are null) added.
RESULT_SCHEMA_VERSION = 18


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
    #: Coverage of the table's intervals (the report's "90% CI" labels); null in results written
    #: before it was recorded (read as 0.95, the only level those runs of ``analyze`` used by default).
    confidence_level: float | None = pa.Field(nullable=True, gt=0.0, lt=1.0)
    models: str
    phi: str
    min_identity: float | None = pa.Field(nullable=True, ge=-1.0, le=1.0)
    compat: str = pa.Field(isin=["default", "release"])
    generalise: str = pa.Field(isin=["faces", "faces+scenarios"])
    audit: str | None = pa.Field(nullable=True, isin=["strict", "report"])
    #: SHA-256 of the preregistered plan the run followed (``analyze --prereg``); None: no plan.
    prereg_sha256: str | None = pa.Field(nullable=True, str_matches=r"^[0-9a-f]{64}$")
    #: The run departed from its plan (``analyze --prereg --exploratory``).
    exploratory: bool
    schema_version: pl.Int64 = pa.Field(ge=1)
    seconds: float = pa.Field(ge=0.0)
    created_at: str


#: A result table's model: a :class:`ResultModel` for the built-in tables, any pandera model for
#: the tables of a design outside the package.
Schema = type[pa.DataFrameModel]


def _built_in() -> dict[str, dict[str, Schema]]:
    """``RESULT_TABLES`` of every ``cueshift.schemas.results_<design>`` module, by design name."""
    found: dict[str, dict[str, Schema]] = {}
    for info in sorted(pkgutil.iter_modules(cueshift.schemas.__path__), key=lambda i: i.name):
        if info.name.startswith("results_"):
            tables = getattr(importlib.import_module(f"cueshift.schemas.{info.name}"), "RESULT_TABLES", None)
            if tables is not None:
                found[info.name.removeprefix("results_")] = dict(tables)
    return found


#: The declared result tables of each design, by their stored name (``paired_attractiveness``,
#: StylisticBias's unprefixed ``sbs``): the built-in designs' at import, any other design's once
#: the design registry declared it (:func:`declare_result_schemas`).
RESULT_TABLES_BY_DESIGN: dict[str, dict[str, Schema]] = _built_in()

#: The result tables of each design by their name within the design (``attractiveness``).
RESULT_SCHEMAS_BY_DESIGN: dict[str, dict[str, Schema]] = {
    design: {name.removeprefix(f"{design}_"): model for name, model in tables.items()}
    for design, tables in RESULT_TABLES_BY_DESIGN.items()
}

#: Every result table by name: ``result_<name>``. StylisticBias names are unprefixed (``sbs``),
#: the other designs' carry the design (``paired_attractiveness``); ``manifest`` is the index.
RESULT_SCHEMAS: dict[str, Schema] = {
    **{name: model for tables in RESULT_TABLES_BY_DESIGN.values() for name, model in tables.items()},
    "manifest": AnalysisManifestSchema,
}


def declare_result_schemas(design: str, tables: Mapping[str, Schema]) -> None:
    """Declare the result tables of ``design`` (stored names, without ``result_``): what the
    design registry does with every design's :attr:`~cueshift.designs.protocol.Design.result_schemas`.

    Declaring the same tables again is a no-op (the built-in designs' are known already).

    Raises
    ------
    ValueError
        A table that another design (or the manifest) declares, or this one with another model.
    """
    for name, model in tables.items():
        known = RESULT_SCHEMAS.get(name)
        if known is not None and (known is not model or name not in RESULT_TABLES_BY_DESIGN.get(design, {})):
            raise ValueError(f"design {design!r}: result table 'result_{name}' is declared already")
    RESULT_TABLES_BY_DESIGN.setdefault(design, {}).update(tables)
    RESULT_SCHEMAS_BY_DESIGN.setdefault(design, {}).update(
        {name.removeprefix(f"{design}_"): model for name, model in tables.items()}
    )
    RESULT_SCHEMAS.update(tables)


def withdraw_result_schemas(design: str) -> None:
    """Forget the result tables a design outside the package declared (the built-in ones stay)."""
    if design in _BUILT_IN:
        return
    for name in RESULT_TABLES_BY_DESIGN.pop(design, {}):
        RESULT_SCHEMAS.pop(name, None)
    RESULT_SCHEMAS_BY_DESIGN.pop(design, None)


_BUILT_IN = frozenset(RESULT_TABLES_BY_DESIGN)


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
        A key of :data:`RESULT_SCHEMAS` (the table name without ``result_``): a table of a
        built-in design, of a design the registry declared, or ``manifest``.
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
        raise SchemaViolation(f"result_{name}: no schema declared (a design's result_schemas)")
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


# the designs the registry found before this check was loaded (D90), and every later one at once
_result_declarations.attach(declare_result_schemas)

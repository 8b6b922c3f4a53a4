"""Schema checks at the cost of the rows: a table's pandera schema run as one polars query.

``schema.validate`` costs about 20 ms per call whatever the frame's size (it collects each
check on its own and builds failure reports), which at the runner's batch rate is more than
the INSERT and the COMMIT together. :class:`CompiledSchema` reads the same pandera schema
(the schema of record) once and checks a frame with one ``select``: the column set and dtypes
(pandera's own dtype objects, from the frame's schema alone), nulls (NaN counts as null in a
float column, as in pandera), uniqueness, and every column and dataframe check, each reduced
to one boolean. A check's expression is taken from pandera's own check function (the same
function, arguments and ``ignore_na`` rule) once per frame schema, by handing it a stand-in
that records what it selects; a check that does more than one ``select`` (collects, joins)
runs through pandera's polars check backend on each frame instead.

A frame that passes passes pandera too. A frame that fails any of them, and any schema using
a feature this does not reproduce (coercion, parsers, regex column names, added or filtered
columns, dropped invalid rows, frame-level ``unique``, element-wise checks), goes through
``schema.validate``, so failures are reported by pandera exactly as before.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

import pandera.backends.polars.builtin_checks  # noqa: F401  (registers the polars check functions)
import pandera.polars as pa
import polars as pl
from pandera.api.polars.types import PolarsData
from pandera.backends.polars.checks import PolarsCheckBackend

from cueshift.schemas import TABLE_SCHEMAS
from cueshift.store.recorder import recorded_check


@dataclass(frozen=True)
class _Column:
    name: str
    dtype: Any  # pandera DataType, None = any
    nullable: bool
    unique: bool
    required: bool
    checks: tuple[Any, ...]  # pandera Check


@dataclass(frozen=True)
class CompiledSchema:
    """A pandera polars schema as one query; see the module docstring.

    Attributes
    ----------
    columns
        The schema's columns with their dtype, nullability, uniqueness and checks.
    checks
        Dataframe-level checks.
    strict
        Whether columns the schema does not name are refused.
    """

    columns: tuple[_Column, ...]
    checks: tuple[Any, ...]
    strict: bool
    _plans: dict[tuple[Any, ...], Any] = field(default_factory=dict, init=False, compare=False, repr=False)

    @classmethod
    def of(cls, schema: pa.DataFrameSchema) -> CompiledSchema | None:
        """Compile ``schema``; None when it uses something :meth:`passes` does not reproduce."""
        if (
            schema.coerce
            or schema.strict not in (True, False)
            or schema.unique
            or getattr(schema, "add_missing_columns", False)
            or schema.drop_invalid_rows
            or getattr(schema, "parsers", None)
        ):
            return None
        columns = []
        for name, col in schema.columns.items():
            if col.regex or col.coerce or col.drop_invalid_rows or getattr(col, "parsers", None):
                return None
            if any(check.element_wise or check.groupby is not None for check in col.checks):
                return None
            columns.append(
                _Column(name, col.dtype, col.nullable, col.unique, col.required, tuple(col.checks))
            )
        if any(check.element_wise for check in schema.checks):
            return None
        return cls(tuple(columns), tuple(schema.checks), bool(schema.strict))

    def passes(self, frame: pl.DataFrame) -> bool:
        """True when ``frame`` satisfies every part of the schema (then pandera accepts it).

        False when any part fails, or raises (e.g. a dataframe check on a missing optional
        column): pandera then decides and words the error.
        """
        try:
            return self._passes(frame)
        except Exception:  # noqa: BLE001 - any doubt goes to pandera
            return False

    def _passes(self, frame: pl.DataFrame) -> bool:
        lazy = frame.lazy()
        if not self._shape_ok(frame, lazy):
            return False
        key = tuple(frame.schema.items())
        plan = self._plans.get(key)
        if plan is None:
            if len(self._plans) > 64:  # frame schemas of one table are few; bound it anyway
                self._plans.clear()
            plan = self._plans[key] = self._plan(frame.schema)
        exprs, by_backend = plan
        if exprs and not all(value is True for value in frame.select(exprs).row(0)):
            return False
        for name, check in by_backend:
            out = PolarsCheckBackend(check).apply(PolarsData(lazy, name))
            if isinstance(out, bool):
                passed = out
            else:
                row = out.select(pl.col("check_output").fill_null(bool(check.ignore_na)).all()).collect()
                passed = row.item() is True
            if not passed:
                return False
        return True

    def _plan(self, schema: pl.Schema) -> tuple[list[pl.Expr], list[tuple[str, Any]]]:
        """One boolean expression per part of the schema, for frames of ``schema``; and the
        checks whose expression could not be recorded (run through pandera's backend)."""
        present = [c for c in self.columns if c.name in schema]
        exprs: list[pl.Expr] = []
        for i, col in enumerate(present):
            if not col.nullable:
                expr = pl.col(col.name).is_not_null()
                if schema[col.name].is_float():
                    expr = expr & pl.col(col.name).is_not_nan()
                exprs.append(expr.all().alias(f"null_{i}"))
            if col.unique:
                exprs.append(pl.col(col.name).is_duplicated().not_().all().alias(f"unique_{i}"))
        by_backend = []
        targets = [(col.name, check) for col in present for check in col.checks]
        targets += [("*", check) for check in self.checks]
        for j, (name, check) in enumerate(targets):
            recorded = recorded_check(check, name, schema)
            if recorded is None:
                by_backend.append((name, check))
                continue
            passed = recorded.fill_null(bool(check.ignore_na)).all()
            exprs.append(passed.alias(f"check_{j}"))
        return exprs, by_backend

    def _shape_ok(self, frame: pl.DataFrame, lazy: pl.LazyFrame) -> bool:
        """Column names and dtypes (pandera's dtype objects on the frame's schema)."""
        names = set(frame.columns)
        if self.strict and not names <= {c.name for c in self.columns}:
            return False
        for col in self.columns:
            if col.name not in names:
                if col.required:
                    return False
                continue
            data = PolarsData(lazy.select(col.name), col.name)
            if col.dtype is not None and not col.dtype.check(frame.schema[col.name], data):
                return False
        return True


@cache
def compiled(table: str) -> CompiledSchema | None:
    """The compiled schema of ``table`` (built once per process), or None."""
    return CompiledSchema.of(TABLE_SCHEMAS[table].to_schema())


__all__ = ["CompiledSchema", "compiled"]

"""Validated writes: every frame passes its pandera schema (``schemas/``) and all frames of a
batch land in one transaction, or none does."""

from __future__ import annotations

from collections.abc import Mapping

import duckdb
import pandera.errors as pa_errors
import polars as pl

from cueshift.errors import CueshiftError, SchemaViolation
from cueshift.schemas import TABLE_SCHEMAS
from cueshift.store.compiled import compiled
from cueshift.store.database import query
from cueshift.store.transaction import rollback

#: rows of a DuckDB row group (its default, 120 vectors of 2,048): an insert of at least this
#: many rows is compressed straight into the file, a smaller one goes through the write-ahead log
ROW_GROUP_ROWS = 122_880


def validate(table: str, frame: pl.DataFrame) -> pl.DataFrame:
    """Check ``frame`` against the pandera schema of ``table``; raise :class:`SchemaViolation`.

    The schema runs as one query first (:mod:`cueshift.store.compiled`: cost proportional to
    the rows); a frame it refuses, or a schema it cannot compile, goes through pandera, which
    words the error.
    """
    fast = compiled(table)
    if fast is not None and fast.passes(frame):
        return frame
    schema = TABLE_SCHEMAS[table]
    try:
        return schema.validate(frame, lazy=True)
    except pa_errors.SchemaErrors as exc:
        raise SchemaViolation(f"{table}: {_first_failure(exc)}") from None
    except pa_errors.SchemaError as exc:
        raise SchemaViolation(f"{table}: {exc}") from None


def _first_failure(exc: pa_errors.SchemaErrors) -> str:
    cases = exc.failure_cases
    n_failures = cases.height if isinstance(cases, pl.DataFrame) else len(cases)
    if not isinstance(cases, pl.DataFrame) or cases.height == 0:
        return str(exc).splitlines()[0]
    first = cases.row(0, named=True)
    column = first.get("column") or "<frame>"
    check = first.get("check")
    index = first.get("index")
    case = first.get("failure_case")
    where = f"row {index}" if index is not None else "frame"
    more = f" (+{n_failures - 1} more)" if n_failures > 1 else ""
    return f"{where}, field '{column}': failed {check} (value {case!r}){more}"


def write_tables(con: duckdb.DuckDBPyConnection, frames: Mapping[str, pl.DataFrame]) -> None:
    """Validate every frame, then insert all of them in one transaction (all or nothing).

    Frames are appended by column name; a primary-key clash aborts the whole batch. ``judgment``
    has no primary-key index: a batch repeating a key is refused by its schema, and a key stored
    before is the caller's to leave out (an anti-join, as the runner plans; see
    :mod:`cueshift.store.keys`, verified by ``analyze`` and ``merge``).
    """
    checked = {table: validate(table, frame) for table, frame in frames.items() if frame.height}
    if not checked:
        return
    con.execute("BEGIN TRANSACTION")
    try:
        for table, frame in checked.items():
            arrow = frame.to_arrow()  # noqa: F841  (referenced by name below)
            columns = ", ".join(frame.columns)
            con.execute(f"INSERT INTO {table} ({columns}) SELECT {columns} FROM arrow")
        con.execute("COMMIT")
    except duckdb.ConstraintException as exc:
        rollback(con)
        raise CueshiftError(f"{'/'.join(checked)}: {str(exc).splitlines()[0]}") from None
    except BaseException:
        rollback(con)  # keeps the real cause when DuckDB aborted already (a full disk)
        raise


def upsert_dimension(con: duckdb.DuckDBPyConnection, table: str, frame: pl.DataFrame, key: str) -> None:
    """Write rows of a dimension table whose key is not stored yet; stored rows must agree.

    Studies are re-run: identities, images, scenarios, variants and models are written
    on each run, and must not change under judgments already stored.
    """
    upsert_dimensions(con, {table: (frame, key)})


def upsert_dimensions(
    con: duckdb.DuckDBPyConnection, dimensions: Mapping[str, tuple[pl.DataFrame, str]]
) -> None:
    """:func:`upsert_dimension` for several tables (``table -> (rows, key)``, referenced tables
    first): every table is checked against its stored rows before any is written, then the new
    rows of all are written in one transaction, so a conflict in one writes none of them."""
    new = {table: _new_dimension_rows(con, table, rows, key) for table, (rows, key) in dimensions.items()}
    write_tables(con, new)


def _new_dimension_rows(
    con: duckdb.DuckDBPyConnection, table: str, frame: pl.DataFrame, key: str
) -> pl.DataFrame:
    """The rows of ``frame`` whose key is not stored yet, after checking the stored ones agree.

    Raises
    ------
    CueshiftError
        A stored row whose other columns differ from the study's (one line naming key and column).
    """
    frame = validate(table, frame)
    if frame.height == 0:
        return frame
    stored = query(con, f"SELECT * FROM {table}")
    if stored.height:
        both = frame.join(stored.select(frame.columns), on=key, how="inner", suffix="__stored")
        for column in frame.columns:
            if column == key:
                continue
            differs = both.filter(
                pl.col(column).cast(pl.String).ne_missing(pl.col(f"{column}__stored").cast(pl.String))
            )
            if differs.height:
                row = differs.row(0, named=True)
                raise CueshiftError(
                    f"{table}: {key}={row[key]!r} is stored with {column}={row[column + '__stored']!r} "
                    f"but the study now says {row[column]!r}; use a new database for a changed study"
                )
        frame = frame.join(stored.select(key), on=key, how="anti")
    return frame


def insert_missing(
    con: duckdb.DuckDBPyConnection, table: str, frame: pl.DataFrame, key: tuple[str, ...]
) -> int:
    """Write the rows of ``frame`` whose ``key`` is not stored in ``table`` yet; returns how many.

    For rows a run stores without asking a model (human ratings, published means): a row stored
    before is kept as it is, so re-running a study writes nothing twice.
    """
    if frame.height == 0:
        return 0
    columns = ", ".join(key)
    stored = query(con, f"SELECT DISTINCT {columns} FROM {table}")
    if stored.height:
        stored = stored.cast({c: frame.schema[c] for c in key})
        frame = frame.join(stored, on=list(key), how="anti")
    write_tables(con, {table: frame})
    return frame.height

"""Whether the ``result_*`` tables of a study database are of this cueshift's result schema.

``cueshift analyze`` records :data:`~cueshift.schemas.results.RESULT_SCHEMA_VERSION` in every
``result_manifest`` row. Result tables are rebuilt by ``analyze``, never upgraded in place: a
database whose results an older cueshift wrote (e.g. before the p-value column was named ``p``,
version 8) still opens, and its readers say in one line to re-run ``cueshift analyze``
(docs/decisions.md D29).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import duckdb

from cueshift.errors import CueshiftError
from cueshift.schemas.results import RESULT_SCHEMA_VERSION

MANIFEST = "result_manifest"
#: Result tables another command than ``analyze`` writes alone, and that command: they do not make
#: a database's results "older" when no manifest is stored beside them.
WRITTEN_ALONE: dict[str, str] = {
    "result_invariance": "check-invariance",
    "result_multiverse": "multiverse",
    "result_multiverse_summary": "multiverse",
    "result_multiverse_joint": "multiverse",
}
OUTSIDE_ANALYZE = frozenset(WRITTEN_ALONE)


def commands_writing(tables: Sequence[str]) -> list[str]:
    """The commands that write ``tables``, in order, each once (``cueshift analyze`` by default).

    Examples
    --------
    >>> commands_writing(["result_sbs", "result_multiverse", "result_multiverse_joint"])
    ['cueshift analyze', 'cueshift multiverse']
    """
    return list(dict.fromkeys(f"cueshift {WRITTEN_ALONE.get(table, 'analyze')}" for table in tables))


def stored_result_version(con: duckdb.DuckDBPyConnection, catalog: str | None = None) -> int | None:
    """The oldest result schema version ``result_manifest`` records (None: no results stored).

    A manifest without the column, or with no row, counts as version 1 when any other
    ``result_*`` table exists (written before the version was recorded).
    """
    where = f"database_name = '{catalog}'" if catalog else "database_name = current_database()"
    tables = {
        str(r[0])
        for r in con.execute(
            f"SELECT table_name FROM duckdb_tables() WHERE {where} AND starts_with(table_name, 'result_')"
        ).fetchall()
    }
    if not tables - {MANIFEST} - OUTSIDE_ANALYZE:
        return None
    if MANIFEST not in tables:
        return 1
    recorded = con.execute(
        f"SELECT count(*) FROM duckdb_columns() WHERE {where} AND table_name = ? AND column_name = ?",
        [MANIFEST, "schema_version"],
    ).fetchall()
    if not recorded[0][0]:
        return 1
    qualified = f"{catalog}.main.{MANIFEST}" if catalog else MANIFEST
    oldest = con.execute(f"SELECT min(schema_version) FROM {qualified}").fetchall()[0][0]
    return int(oldest) if oldest is not None else 1


def stale_results_line(path: Path, con: duckdb.DuckDBPyConnection, catalog: str | None = None) -> str | None:
    """The one line telling the user to re-run ``cueshift analyze``, or None when the stored
    results (if any) are of the current result schema."""
    version = stored_result_version(con, catalog)
    if version is None or version >= RESULT_SCHEMA_VERSION:
        return None
    return (
        f"{path}: its result tables were written by an older cueshift (result schema {version}, this "
        f"one reads {RESULT_SCHEMA_VERSION}); re-run `cueshift analyze` to rebuild them"
    )


def check_result_version(path: Path, con: duckdb.DuckDBPyConnection, catalog: str | None = None) -> None:
    """Refuse result tables an older cueshift wrote.

    Raises
    ------
    CueshiftError
        One line naming the database, the stored and current result schema versions and
        ``cueshift analyze``.
    """
    line = stale_results_line(path, con, catalog)
    if line is not None:
        raise CueshiftError(line)

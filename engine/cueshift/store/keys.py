"""Keys the schema declares without an index, and the check that they hold.

``judgment`` has no primary key: maintaining its index (an ART over three VARCHARs and two
INTEGERs) cost more than everything else of a write together (BENCHMARKS.md, "Ingestion").
Its key is unique by construction instead:

* every writer writes only keys the table lacks: the runner's plan and ``import judgments``
  are anti-joins of what is stored, computed while the writer holds DuckDB's file lock (one
  read-write process per database file) for its whole run;
* the plan holds each key once, and a batch repeating a key is refused before the database
  (the schema's ``unique_key`` check); batches are disjoint slices of the plan, each written
  once, in one transaction (a kill loses the batch in flight, which the next run plans again);
* ``merge`` inserts per key the first row and only keys the output lacks.

:func:`check_unique_keys` verifies it where the rows are used — ``cueshift analyze`` and
``merge`` — and refuses a duplicated key with one line naming it.
"""

from __future__ import annotations

import contextlib

import duckdb

from cueshift.errors import CueshiftError

#: The key of each table stored without a primary-key index.
UNINDEXED_KEYS: dict[str, tuple[str, ...]] = {
    "judgment": ("model_id", "image_id", "scenario_id", "ordering", "seed"),
}

#: The first stage's hash of the key columns (``{}``: the quoted column list); a test makes it coarse.
KEY_HASH = "hash({})"


def duplicated_key(
    con: duckdb.DuckDBPyConnection, table: str, key: tuple[str, ...], schema: str = "main"
) -> tuple[object, ...] | None:
    """One value of ``key`` that two rows of ``table`` share, or None when the key is unique.

    First the rows are grouped by ``hash(key)`` (one UBIGINT, cheaper to group than the key's
    strings): no hash shared by two rows proves no key is. Only when one is shared (a duplicate,
    or a 64-bit hash collision, about :math:`n^2 / 2^{65}` for :math:`n` distinct keys) does the
    exact ``GROUP BY key HAVING count(*) > 1`` decide. The hash lives in this query only, so its
    value may change between DuckDB versions without harm.
    """
    columns = ", ".join(f'"{c}"' for c in key)
    source = f"{schema}.{table}"
    shared = con.execute(
        f"SELECT 1 FROM {source} GROUP BY {KEY_HASH.format(columns)} HAVING count(*) > 1 LIMIT 1"
    ).fetchall()
    if not shared:
        return None
    found = con.execute(f"SELECT {columns} FROM {source} GROUP BY ALL HAVING count(*) > 1 LIMIT 1").fetchall()
    return tuple(found[0]) if found else None


def _checked_marker(table: str) -> str:
    return f"unique_key_checked:{table}"


def check_unique_keys(con: duckdb.DuckDBPyConnection) -> None:
    """Raise :class:`CueshiftError` (one line, naming the database file and the key) if a table of
    :data:`UNINDEXED_KEYS` in ``con``'s database stores a key twice.

    A table that passed is recorded in ``cueshift_meta`` with its row count, and the check is not
    repeated while the count is unchanged (cueshift's writers only append, so a second
    ``analyze`` of an unchanged study costs nothing; any append makes the next use check again).
    """
    for table, key in UNINDEXED_KEYS.items():
        n_rows = con.execute(f"SELECT count(*) FROM main.{table}").fetchall()[0][0]
        marker = _checked_marker(table)
        seen = con.execute("SELECT value FROM cueshift_meta WHERE key = ?", [marker]).fetchall()
        if seen and seen[0][0] == str(n_rows):
            continue
        found = duplicated_key(con, table, key)
        if found is None:
            with contextlib.suppress(duckdb.Error):  # read-only: checked again next time
                con.execute(
                    "INSERT INTO cueshift_meta VALUES (?, ?) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    [marker, str(n_rows)],
                )
        if found is not None:
            path = con.execute(
                "SELECT coalesce(path, database_name) FROM duckdb_databases() "
                "WHERE database_name = current_database()"
            ).fetchall()[0][0]
            named = ", ".join(f"{c}={v!r}" for c, v in zip(key, found, strict=True))
            raise CueshiftError(
                f"{path}: table {table} stores the key ({named}) more than once; a study database "
                "holds each judgment once (was it written outside cueshift?)"
            )


__all__ = ["UNINDEXED_KEYS", "check_unique_keys", "duplicated_key"]

"""The rows of an older study database copied into a new one of the current schema (see
:mod:`cueshift.store.upgrade`): every table by column name (a renamed table or column mapped to
its new name), checked row for row, and the ``judgment.invalid_reason`` an old database did not
record derived from the raw answers."""

from __future__ import annotations

from dataclasses import dataclass, field

import duckdb
import polars as pl

from cueshift.errors import CueshiftError
from cueshift.inference.parser_batch import parse_answers
from cueshift.study.scenarios import ORDERING_BY_ID, Scenario

#: The attached old database while its rows are copied.
OLD = "old_study"
#: Old table name -> current one (5: the person table ``identity`` became ``face``).
RENAMED_TABLES: dict[str, str] = {"identity": "face"}
#: (current table, old column) -> current column (5: ``identity_id`` became ``face_id``).
RENAMED_COLUMNS: dict[tuple[str, str], str] = {
    ("face", "identity_id"): "face_id",
    ("image", "identity_id"): "face_id",
}


@dataclass
class CopiedRows:
    """What the copy did: rows per table, columns the old data left NULL, tables dropped or kept."""

    rows: dict[str, int] = field(default_factory=dict)
    renamed: list[str] = field(default_factory=list)
    new_columns: list[str] = field(default_factory=list)
    dropped_results: list[str] = field(default_factory=list)
    kept_as_is: list[str] = field(default_factory=list)
    reasons_derived: int = 0
    reasons_unknown: int = 0


def _columns(con: duckdb.DuckDBPyConnection, database: str, table: str) -> list[str]:
    rows = con.execute(
        "SELECT column_name FROM duckdb_columns() WHERE database_name = ? AND schema_name = 'main' "
        "AND table_name = ? ORDER BY column_index",
        [database, table],
    ).fetchall()
    return [str(r[0]) for r in rows]


def _tables(con: duckdb.DuckDBPyConnection, database: str) -> list[str]:
    rows = con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = ? AND schema_name = 'main' "
        "ORDER BY table_oid",
        [database],
    ).fetchall()
    return [str(r[0]) for r in rows]


def copy_rows(con: duckdb.DuckDBPyConnection, path: str) -> CopiedRows:
    """Copy every table of the attached :data:`OLD` database into ``con``'s current-schema tables.

    A table or column of :data:`RENAMED_TABLES` / :data:`RENAMED_COLUMNS` goes to its new name;
    ``result_*`` tables are left behind (``cueshift analyze`` recomputes them), ``cueshift_meta``
    keeps the new schema version; a table the schema does not know is copied as it is. Each
    table's rows are then compared with the old ones (as multisets, on the old columns).
    """
    copied = CopiedRows()
    current = con.execute("SELECT current_database()").fetchall()[0][0]
    known = set(_tables(con, current))
    for table in _tables(con, OLD):
        if table.startswith("result_"):
            copied.dropped_results.append(table)
            continue
        source = f'{OLD}.main."{table}"'
        if table == "cueshift_meta":
            con.execute(
                f"INSERT INTO cueshift_meta SELECT key, value FROM {source} "
                "WHERE key <> 'schema_version' ON CONFLICT DO NOTHING"
            )
            continue
        old_columns = _columns(con, OLD, table)
        target = RENAMED_TABLES.get(table, table)
        if target not in known:
            con.execute(f'CREATE TABLE "{table}" AS SELECT * FROM {source}')
            copied.kept_as_is.append(table)
            columns = {c: c for c in old_columns}
        else:
            columns = {c: RENAMED_COLUMNS.get((target, c), c) for c in old_columns}
            copied.renamed += _renames(table, target, columns)
            new_columns = _columns(con, current, target)
            unknown = [c for c, new in columns.items() if new not in new_columns]
            if unknown:
                raise CueshiftError(
                    f"{path}: column {table}.{unknown[0]} is not in the current schema; cannot upgrade"
                )
            copied.new_columns += [f"{target}.{c}" for c in new_columns if c not in columns.values()]
            con.execute(f'INSERT INTO "{target}" BY NAME SELECT {_select(columns)} FROM {source}')
        copied.rows[target] = _check_same_rows(con, path, table, target, columns)
    return copied


def _select(columns: dict[str, str]) -> str:
    """``"old" AS "new", ...``: the old columns under their current names."""
    return ", ".join(f'"{old}" AS "{new}"' for old, new in columns.items())


def _renames(table: str, target: str, columns: dict[str, str]) -> list[str]:
    """What the copy renames, e.g. ``identity -> face``, ``image.identity_id -> face_id``."""
    moved = [f"{table} -> {target}"] if target != table else []
    return moved + [f"{target}.{old} -> {new}" for old, new in columns.items() if old != new]


def _check_same_rows(
    con: duckdb.DuckDBPyConnection, path: str, table: str, target: str, columns: dict[str, str]
) -> int:
    """The row count of ``target``, after checking it holds exactly the old ``table``'s rows
    (``columns``: each old column and its current name)."""
    old_names = ", ".join(f'"{c}"' for c in columns)
    new_names = ", ".join(f'"{c}"' for c in columns.values())
    counts = con.execute(
        f'SELECT (SELECT count(*) FROM {OLD}.main."{table}"), (SELECT count(*) FROM "{target}"), '
        f'(SELECT count(*) FROM (SELECT {old_names} FROM {OLD}.main."{table}" '
        f'EXCEPT ALL SELECT {new_names} FROM "{target}"))'
    ).fetchall()[0]
    old, new, missing = (int(n) for n in counts)
    if old != new or missing:
        raise CueshiftError(f"{path}: table {table}: {old:,} rows before, {new:,} copied, {missing:,} differ")
    return new


def derive_invalid_reasons(con: duckdb.DuckDBPyConnection, copied: CopiedRows) -> None:
    """Fill ``judgment.invalid_reason`` of invalid answers that lack it by parsing the raw answer
    again, as the runner does (the prompt's descriptors from ``scenario`` and the ordering).

    A row stays NULL when this parser names a letter in it (the answer was parsed by another
    version), or its scenario or ordering is unknown; :attr:`CopiedRows.reasons_unknown` counts them.
    """
    missing = "FROM judgment WHERE outcome = 'invalid' AND invalid_reason IS NULL"
    before = int(con.execute(f"SELECT count(*) {missing}").fetchall()[0][0])
    distinct = con.execute(
        "SELECT DISTINCT j.response_text, j.scenario_id, j.ordering, s.favorable, s.unfavorable "
        "FROM judgment AS j JOIN scenario AS s USING (scenario_id) "
        "WHERE j.outcome = 'invalid' AND j.invalid_reason IS NULL"
    ).fetchall()
    keys, descriptors = [], []
    for text, scenario_id, ordering_id, favorable, unfavorable in distinct:
        ordering = ORDERING_BY_ID.get(int(ordering_id))
        if ordering is not None:
            keys.append((text, scenario_id, ordering_id))
            descriptors.append(
                ordering.descriptor_by_letter(Scenario(scenario_id, favorable, unfavorable, ""))
            )
    letters, reasons = parse_answers([k[0] for k in keys], descriptors)
    found = [
        (*key, reason) for key, letter, reason in zip(keys, letters, reasons, strict=True) if letter is None
    ]
    frame = pl.DataFrame(
        found,
        schema={
            "response_text": pl.String,
            "scenario_id": pl.String,
            "ordering": pl.Int32,
            "reason": pl.String,
        },
        orient="row",
    )
    con.register("upgrade_reasons", frame.to_arrow())
    try:
        con.execute(
            "UPDATE judgment SET invalid_reason = r.reason FROM upgrade_reasons AS r "
            "WHERE judgment.outcome = 'invalid' AND judgment.invalid_reason IS NULL "
            "AND judgment.response_text = r.response_text AND judgment.scenario_id = r.scenario_id "
            "AND judgment.ordering = r.ordering"
        )
    finally:
        con.unregister("upgrade_reasons")
    after = int(con.execute(f"SELECT count(*) {missing}").fetchall()[0][0])
    copied.reasons_derived, copied.reasons_unknown = before - after, after

"""Merging study databases (the shards of ``cueshift infer --shard K/N``) into one; trusts no input.

Every data table of the schema is merged — judgments, two-image trials, ratings, human means,
the dimension tables, run records, the embedding cache — as the database's catalog lists them
(:func:`~cueshift.store.database.study_tables`), so a table added to ``sql/schema.sql`` is
merged without a change here. Result tables are not merged: ``cueshift analyze`` recomputes
them from the merged data.

Before the output is opened, every input is checked read-only: a whole DuckDB file, this schema
version, the same study (name and definition hash, :mod:`cueshift.store.fingerprint`) as the other
inputs and the output, and every table with the output's columns, matched by name, never by
position (:mod:`~cueshift.store.merge_checks`). Rows whose key and content agree are one answer
even when their provenance (which run, when, how fast) differs — a legitimate re-run; the same
key with other content is a conflict, refused with the key named (:mod:`~cueshift.store.merge_rows`).
On any failure nothing is written, and an output the merge created is removed.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from cueshift.errors import CueshiftError
from cueshift.store.damage import unreadable
from cueshift.store.database import open_study
from cueshift.store.files import check_database_path, close_quietly, remove_database
from cueshift.store.merge_checks import check_input, check_one_study, expected_tables
from cueshift.store.merge_rows import merge_all


def merge_databases(output: Path, inputs: list[Path]) -> dict[str, int]:
    """Merge study databases into ``output`` (created if needed) in one transaction.

    Rows already in ``output`` are kept; a key present with different content in two
    inputs (or in an input and the output) is an error and nothing is written.

    Parameters
    ----------
    output
        The database merged into.
    inputs
        Databases of the same schema version and study (e.g. the shard files of one study).

    Returns
    -------
    dict of str to int
        Rows added per table.

    Raises
    ------
    CueshiftError
        A missing, damaged or foreign input; an input that is the output; another schema
        version or study; a table whose columns differ by name or type; conflicting rows.
    """
    output = Path(output)
    if not inputs:
        raise CueshiftError("merge: no databases to merge")
    for path in inputs:
        if not Path(path).is_file():
            raise CueshiftError(f"{path}: no such database to merge")
        if Path(path).resolve() == output.resolve():
            raise CueshiftError(f"{path}: cannot merge a database into itself")
    expected = expected_tables()
    fingerprints = {Path(path): check_input(Path(path), expected) for path in inputs}
    existed = check_database_path(output)
    if existed:
        fingerprints[output] = check_input(output, expected)
    check_one_study(fingerprints)
    con = open_study(output)
    try:
        added = merge_all(con, inputs, expected)
        _checkpoint(con, output, existed)
    except BaseException as exc:
        close_quietly(con)
        if not existed:
            remove_database(output)
        if isinstance(exc, duckdb.Error):  # a block of an input that only reading its rows finds damaged
            left = f"{output} is unchanged" if existed else f"{output} was not written"
            raise CueshiftError(f"merge: {unreadable(inputs, exc, left)}") from None
        raise
    con.close()
    return added


def _checkpoint(con: duckdb.DuckDBPyConnection, output: Path, existed: bool) -> None:
    """Write the merge into the database file now, so a full disk is reported, not left in the WAL."""
    try:
        con.execute("CHECKPOINT")
    except duckdb.Error as exc:
        kept = (
            " (the merge is committed in its .wal file and applied when it is next opened)" if existed else ""
        )
        raise CueshiftError(
            f"{output}: cannot write the merged database: {str(exc).splitlines()[0]}{kept}"
        ) from None

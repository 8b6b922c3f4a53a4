"""Opening a study database for a report, and the checks that make a bad one a clear error."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import duckdb

from cueshift import store
from cueshift.errors import CueshiftError
from cueshift.store.damage import verify_blocks
from cueshift.store.damage_checksums import verify_checksums
from cueshift.store.model_subset import answered_models, parse_models, unknown_models_line
from cueshift.store.result_version import check_result_version

#: Tables a report reads at the least (the data model of ``sql/schema.sql``).
BASE_TABLES: tuple[str, ...] = ("face", "image", "scenario", "model", "judgment")


def relations(con: duckdb.DuckDBPyConnection) -> set[str]:
    """Names of the tables and views of the database's main schema."""
    rows = con.sql("SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'").fetchall()
    return {r[0] for r in rows}


def open_for_report(
    path: str | Path, models: str | Sequence[str] | None = None
) -> tuple[duckdb.DuckDBPyConnection, list[str], list[str]]:
    """Open ``path`` read-only and check it can carry a report.

    Parameters
    ----------
    path : str or Path
        The study database (DuckDB file).
    models : str or sequence of str, optional
        Model subset (comma-separated or a list); empty means every model of the database.

    Returns
    -------
    con : duckdb.DuckDBPyConnection
        Read-only connection (the caller closes it).
    selected : list of str
        The model ids the report covers, in database order.
    available : list of str
        Every model id with judgments in the database.

    Raises
    ------
    CueshiftError
        The file is missing, is not a study database, holds no judgments, lacks the views,
        holds result tables an older cueshift wrote (re-run ``cueshift analyze``), has a damaged
        block (every table is read once), or the subset names an unknown model.
    """
    path = Path(path)
    if not path.is_file():
        raise CueshiftError(f"{path}: no such study database (run `cueshift infer` first)")
    try:
        con = store.open_study(path, read_only=True)  # checked first: no extension download
    except duckdb.Error as exc:
        raise CueshiftError(f"{path}: cannot open the study database ({str(exc).splitlines()[0]})") from None
    try:
        present = relations(con)
        missing = [t for t in BASE_TABLES if t not in present]
        if missing:
            raise CueshiftError(
                f"{path}: not a cueshift study database (missing table(s) {', '.join(missing)})"
            )
        missing_views = [v for v in store.VIEWS if v not in present]
        if missing_views:
            raise CueshiftError(
                f"{path}: view(s) {', '.join(missing_views)} missing; open it once with `cueshift analyze`"
            )
        check_result_version(path, con)  # results of an older result schema: re-run analyze
        # the report's cells read the file in a kernel of their own, where a damaged block would
        # be a kernel's traceback: every block is read here first (the one line naming the file),
        # and every block's checksum checked, those of the indexes a cell's key look-up reads too
        verify_blocks(con, path)
        verify_checksums(con, path)
        # every design's answers: forced-choice judgments, pairwise trials (seed 002), model ratings
        available = answered_models(con)
        if not available:
            raise CueshiftError(
                f"{path}: the study database holds no judgments yet (run `cueshift infer` first)"
            )
        wanted = parse_models(models)
        unknown = [m for m in wanted if m not in available]
        if unknown:
            raise CueshiftError(unknown_models_line(unknown, path, available))
        selected = [m for m in available if m in wanted] if wanted else available
    except BaseException:
        con.close()
        raise
    return con, selected, available

"""``cs.open_study``: a study database, a study file or ``"default"`` opened as the read-only
:class:`~cueshift.api._study.Study`, with the checks and one-line errors of ``cueshift sql``."""

from __future__ import annotations

from pathlib import Path

from cueshift.api._locate import database_of, one_line_errors
from cueshift.api._study import Study
from cueshift.errors import CueshiftError


@one_line_errors
def open_study(path_or_study_file: str | Path = "default", *, db: str | Path | None = None) -> Study:
    """Open a study database read-only, as ``cueshift sql``/``report`` do (the same checks and lines).

    Parameters
    ----------
    path_or_study_file
        A study database (``.duckdb``), a study file (``.toml``) or ``"default"`` (the embedded
        default study); a study's database is its ``database`` (default ``runs/<name>.duckdb``).
    db
        With a study file: the database to open instead of its ``database`` (``--db``).

    Returns
    -------
    Study
        The read-only study (see :class:`Study`).

    Raises
    ------
    CueshiftError
        A missing file, a file that is not a cueshift study database, a database of another schema
        version (naming ``cueshift upgrade``), an invalid study file.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import cueshift as cs
    >>> from cueshift.api import write_demo_study
    >>> study_file = write_demo_study(Path(tempfile.mkdtemp()))
    >>> _ = cs.infer(study_file, progress=False)
    >>> study = cs.open_study(study_file.with_suffix(".duckdb"))
    >>> study.sql("SELECT count(*) AS n FROM judgment WHERE model_id = 'sim'")["n"].item()
    20700
    >>> study.delta().columns[:3]
    [...]
    >>> cs.open_study(study_file.parent / "missing.duckdb")
    Traceback (most recent call last):
    ...
    cueshift.errors.CueshiftError: ...missing.duckdb: no such study database (run `cueshift infer` first)
    """
    from cueshift import store

    path, spec = database_of(path_or_study_file, db)
    con = store.open_study(path, read_only=True)  # missing, foreign, damaged, old schema: one line
    try:
        tables = {r[0] for r in con.sql("SELECT table_name FROM duckdb_tables()").fetchall()}
        if "cueshift_meta" not in tables:  # an empty DuckDB file passes the schema check
            raise CueshiftError(f"{path}: not a cueshift study database (no cueshift schema version)")
        latest = (
            con.sql(
                "SELECT study_name, json_extract_string(config, '$.design') FROM run "
                "ORDER BY started_at DESC LIMIT 1"
            ).fetchall()
            if "run" in tables
            else []
        )
    finally:
        con.close()
    if spec is not None:
        return Study(path, spec.name, spec.design)
    if latest:
        return Study(path, latest[0][0], latest[0][1])
    return Study(path, path.stem, None)

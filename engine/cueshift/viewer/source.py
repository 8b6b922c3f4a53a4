"""The study database as the viewer reads it: opened read-only, aggregated once into memory.

The study file is attached **read-only** to an in-memory DuckDB database. At start the viewer
materialises, in memory, the small dimension tables and the aggregates every page reads:
``phi`` (per model × image × scenario, from ``sql/views/phi.sql``) and ``delta`` (per model ×
variation image × scenario, from ``sql/views/delta.sql``) — the same SQL as ``cueshift
analyze``, so a number on a page is the number of the views — and ``counts``, the answers per
model × scenario category × demographic cell. Raw judgments are read from the
attached file only for the drill-down of one image × scenario. After the build, file-system
access is switched off and the configuration locked: no page can reach another file. The
quality tables (``image_identity``, ``edit_audit``, the face models' ``face_detection`` and
``audit_skin_tone``) are copied too, empty when the file has none, and ``result_manifest`` as it
is: the pages' interval labels read the level each result table was computed at from it
(:func:`cueshift.render.stored_level` looks in the cursor's own database, the in-memory one).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from cueshift import store
from cueshift.errors import CueshiftError
from cueshift.store.damage import is_damage, remember, unreadable
from cueshift.store.database import check_schema_version
from cueshift.store.readonly import LOCKED_CONFIG
from cueshift.store.result_version import MANIFEST, stale_results_line
from cueshift.store.snapshot import readable, tell_reader
from cueshift.study.config import DEFAULT_DESIGN
from cueshift.viewer import audit, face_models, quality

#: Dimension tables copied into memory (small: at paper scale 16 k images).
DIMENSIONS: tuple[str, ...] = ("face", "image", "scenario", "model", "prompt_variant", "stimulus")
#: Tables a cueshift study database always has.
REQUIRED: tuple[str, ...] = ("face", "image", "scenario", "model", "judgment", "run")


@dataclass(frozen=True)
class Source:
    """One study database, attached read-only (catalog ``study``) beside its in-memory aggregates.

    Attributes
    ----------
    path
        The study database file.
    name, design
        Study name and design of its latest run (``stylisticbias`` when no run says otherwise).
    configs
        The study configuration of every run (JSON as stored in ``run.config``), latest first.
    tables
        Tables and views of the study file (e.g. which ``result_*`` tables exist).
    build_seconds
        Time spent aggregating at start.
    min_identity
        The ``--min-identity`` of the latest ``cueshift analyze``, if any (:mod:`cueshift.viewer.quality`).
    audited, failed_edits
        Variations in the edit audit, and those that failed it (:mod:`cueshift.viewer.audit`).
    stale_results
        The one line saying an older cueshift wrote the ``result_*`` tables (re-run ``cueshift
        analyze``); they are then left out of ``tables``, so pages show what they show before
        ``analyze``. None when the results are current or absent.
    """

    path: Path
    name: str
    design: str
    configs: tuple[dict[str, Any], ...]
    tables: frozenset[str]
    build_seconds: float
    con: duckdb.DuckDBPyConnection = field(repr=False)
    min_identity: float | None = None
    audited: int = 0
    failed_edits: int = 0
    stale_results: str | None = None

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """A connection of its own for one request (DuckDB cursors are safe across threads)."""
        return self.con.cursor()

    def has(self, table: str) -> bool:
        """Whether the study file holds ``table`` (a ``result_*`` table, ``pairwise_trial``, ...)."""
        return table in self.tables

    def close(self) -> None:
        self.con.close()


def _attach(path: Path) -> duckdb.DuckDBPyConnection:
    source, snapshot = readable(path)  # while a running infer holds the file: its snapshot
    con = duckdb.connect(":memory:")
    try:
        con.execute("SET enable_progress_bar = false")
        con.execute("ATTACH ? AS study (READ_ONLY)", [str(source)])
        check_schema_version(con, path, "study")
        remember(path)  # a damaged block a page meets later is named by this file
        tell_reader(snapshot, con, "study")
    except CueshiftError:
        con.close()
        raise
    except duckdb.Error as exc:
        con.close()
        raise CueshiftError(f"{path}: cannot open as a study database: {str(exc).splitlines()[0]}") from None
    return con


def _materialise(con: duckdb.DuckDBPyConnection) -> None:
    """Copy the dimensions and build ``phi`` and ``delta`` in memory from the views' own SQL."""
    for table in DIMENSIONS:
        con.execute(f"CREATE TABLE memory.main.{table} AS SELECT * FROM study.main.{table}")
    con.execute("CREATE SCHEMA memory.src")
    con.execute("USE memory.src")
    # the view SQL names bare tables: resolve them in the attached file, create views in src
    con.execute("SET search_path = 'memory.src,study.main'")
    con.execute(store.sql_text("views/phi.sql"))
    con.execute("CREATE TABLE memory.main.phi AS SELECT * FROM memory.src.phi ORDER BY image_id")
    con.execute("DROP VIEW memory.src.phi")
    con.execute("SET search_path = 'memory.src,memory.main,study.main'")
    con.execute(store.sql_text("views/delta.sql"))
    con.execute(
        "CREATE TABLE memory.main.delta AS SELECT * FROM memory.src.delta "
        "ORDER BY variation_value, face_id, model_id"
    )
    con.execute("DROP SCHEMA memory.src CASCADE")
    # answer counts by everything the overview filters on: ~10^3 rows instead of one per φ cell
    con.execute(
        """
        CREATE TABLE memory.main.counts AS
        SELECT p.model_id, s.category AS scenario_category, i.age, i.gender, i.ethnicity, i.body_type,
               sum(p.n_total)::BIGINT AS n_total, sum(p.n_total - p.n_valid)::BIGINT AS n_invalid
        FROM memory.main.phi AS p JOIN memory.main.image AS m USING (image_id)
        JOIN memory.main.face AS i USING (face_id) JOIN memory.main.scenario AS s USING (scenario_id)
        GROUP BY ALL
        """
    )
    con.execute("USE memory.main")
    con.execute("RESET search_path")


def _lock(con: duckdb.DuckDBPyConnection) -> None:
    """The settings of ``cueshift sql``'s locked connection: no file, network or other database
    (no ATTACH, COPY, read_csv ...), no extension loading, no Python replacement scans, and the
    configuration locked last, so nothing can turn it back on."""
    for name, value in LOCKED_CONFIG.items():
        con.execute(f"SET {name} = {str(value).lower() if isinstance(value, bool) else value!r}")


def open_source(path: str | Path) -> Source:
    """Attach ``path`` read-only and aggregate it (once) for the viewer.

    Raises
    ------
    CueshiftError
        No such file, or not a cueshift study database (one line naming the file and table).
    """
    path = Path(path)
    if not path.is_file():
        raise CueshiftError(f"{path}: no such study database (run `cueshift infer` first)")
    started = time.perf_counter()
    con = _attach(path)
    try:
        tables = frozenset(
            str(r[0])
            for r in con.execute(
                "SELECT table_name FROM duckdb_tables() WHERE database_name = 'study' UNION ALL "
                "SELECT view_name FROM duckdb_views() WHERE database_name = 'study'"
            ).fetchall()
        )
        missing = [t for t in REQUIRED if t not in tables]
        if missing:
            raise CueshiftError(f"{path}: not a cueshift study database (no table {missing[0]!r})")
        stale = stale_results_line(path, con, "study")
        if stale is not None:  # their columns are not the pages': read as if analyze had not run
            tables = frozenset(t for t in tables if not t.startswith("result_") or t == MANIFEST)
        configs = tuple(
            json.loads(str(r[0]))
            for r in con.execute("SELECT config FROM study.main.run ORDER BY started_at DESC").fetchall()
        )
        _materialise(con)
        if MANIFEST in tables:  # where stored_level finds each table's confidence level
            con.execute(f"CREATE TABLE memory.main.{MANIFEST} AS SELECT * FROM study.main.{MANIFEST}")
        min_identity = quality.applied_min_identity(con, tables)
        quality.materialise(con, tables, min_identity)
        audit.materialise(con, tables)
        face_models.materialise(con, tables)
        edits = audit.summary(con)
        _lock(con)
    except duckdb.Error as exc:  # a block that fails its checksum, met while aggregating
        con.close()
        if not is_damage(exc):
            raise
        raise CueshiftError(unreadable([path], exc)) from None
    except BaseException:
        con.close()
        raise
    latest = configs[0] if configs else {}
    return Source(
        path=path,
        name=str(latest.get("name") or path.stem),
        design=str(latest.get("design") or DEFAULT_DESIGN),
        configs=configs,
        tables=tables,
        build_seconds=time.perf_counter() - started,
        con=con,
        min_identity=min_identity,
        audited=edits["audited"],
        failed_edits=edits["failed"],
        stale_results=stale,
    )

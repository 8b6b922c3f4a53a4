"""``cueshift upgrade``: a study database of an older schema version brought to the current one.

What changed in ``sql/schema.sql`` between the versions it upgrades:

* 2 → 3: ``judgment.invalid_reason``, the parser's reason for an invalid answer (derived here
  from the raw answer, :func:`~cueshift.store.upgrade_rows.derive_invalid_reasons`);
* 3 → 4: ``judgment`` without its primary-key index (the key is checked by ``store/keys.py``),
  and the ``image_identity`` table;
* 4 → 5: the person table ``identity`` renamed ``face``, its key ``identity_id`` (and
  ``image.identity_id``) renamed ``face_id`` (:data:`~cueshift.store.upgrade_rows.RENAMED_TABLES`);
* databases stamped 2 before ``run.backend_report``, ``request_failure`` and ``release_judgment``
  existed get them (NULL, empty);
* ``result_*`` tables (e.g. ``result_manifest.phi`` and ``.min_identity`` came later) are dropped:
  ``cueshift analyze`` recomputes them.

The old file is never written. The new database is built beside it, in a temporary file, from the
current schema in one transaction (every row copied by column name and compared with the old
rows); the old file is then kept as ``<name>.schema-v<N>.duckdb`` (a hard link, else a copy) and
the new one takes its name in one rename. A kill at any moment leaves the old database or the
upgraded one at the path, whole.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import duckdb

from cueshift.errors import CueshiftError
from cueshift.store.damage import verify_blocks
from cueshift.store.database import SCHEMA_VERSION, UPGRADABLE_VERSIONS, create_views, sql_text
from cueshift.store.files import check_existing_database, close_quietly, connect, remove_database
from cueshift.store.transaction import transaction
from cueshift.store.upgrade_rows import OLD, CopiedRows, copy_rows, derive_invalid_reasons

#: What a database without a version stamp reads as.
_UNSTAMPED: Final[str] = "none"


@dataclass(frozen=True)
class Upgrade:
    """One upgraded database: its versions, its backup and what the copy did (``None``: nothing to do)."""

    path: Path
    version: str
    backup: Path | None = None
    copied: CopiedRows | None = None

    def summary(self) -> str:
        """One line for the terminal."""
        if self.copied is None:
            return f"{self.path}: schema version {self.version} already; nothing to upgrade"
        c = self.copied
        parts = [
            f"{self.path}: schema version {self.version} -> {SCHEMA_VERSION}",
            f"judgment: {c.rows.get('judgment', 0):,} rows kept",
            f"invalid_reason derived for {c.reasons_derived:,} invalid answers"
            + (f", left NULL for {c.reasons_unknown:,} (not derivable)" if c.reasons_unknown else ""),
        ]
        if c.renamed:
            parts.append("renamed: " + ", ".join(c.renamed))
        others = [n for n in c.new_columns if n != "judgment.invalid_reason"]
        if others:
            parts.append("new columns left NULL: " + ", ".join(others))
        if c.kept_as_is:
            parts.append("tables copied as they were: " + ", ".join(c.kept_as_is))
        if c.dropped_results:
            parts.append(f"{len(c.dropped_results)} result tables dropped (run `cueshift analyze`)")
        return "; ".join(parts) + f"; the old file is kept as {self.backup}"


def stored_version(path: Path) -> str:
    """The schema version ``path`` is stamped with (:data:`_UNSTAMPED` without a stamp)."""
    con = connect(path, read_only=True)
    try:
        tables = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
        if "cueshift_meta" not in tables:
            return _UNSTAMPED
        rows = con.execute("SELECT value FROM cueshift_meta WHERE key = 'schema_version'").fetchall()
    finally:
        con.close()
    return str(rows[0][0]) if rows else _UNSTAMPED


def upgrade_database(path: str | Path) -> Upgrade:
    """Bring the study database at ``path`` to schema version :data:`SCHEMA_VERSION`.

    Raises
    ------
    CueshiftError
        No such file, not a whole DuckDB database, a block that fails its checksum (every table
        read once first, result tables too), in use, or of a version this cueshift cannot upgrade
        (unknown, newer, unstamped); the file is left as it was.
    """
    path = Path(path)
    if not path.exists():
        raise CueshiftError(f"{path}: no such study database")
    path = path.resolve() if path.is_symlink() else path  # the file it names is upgraded
    check_existing_database(path)
    version = stored_version(path)
    if version == SCHEMA_VERSION:
        return Upgrade(path, version)
    if version not in UPGRADABLE_VERSIONS:
        found = "no cueshift schema version" if version == _UNSTAMPED else f"schema version {version}"
        raise CueshiftError(
            f"{path}: the database has {found}; `cueshift upgrade` upgrades versions "
            f"{', '.join(UPGRADABLE_VERSIONS)} to {SCHEMA_VERSION} only"
        )
    _verify(path)
    _fold_wal(path)
    work = path.with_name(f".{path.name}.upgrading")
    remove_database(work)  # a killed upgrade's leftover
    try:
        copied = _build(work, path)
    except BaseException:
        remove_database(work)
        raise
    backup = path.with_name(f"{path.stem}.schema-v{version}{path.suffix}")
    _keep(path, backup)
    os.replace(work, path)
    _sync_folder(path.parent)
    return Upgrade(path, version, backup, copied)


def _verify(path: Path) -> None:
    """Read every table of ``path`` once, its result tables too (which the upgrade drops): a damaged
    block is refused in one line naming the file before anything is written (D79)."""
    con = connect(path, read_only=True)
    try:
        verify_blocks(con, path)
    finally:
        con.close()


def _fold_wal(path: Path) -> None:
    """Fold a write-ahead log left beside ``path`` into it (DuckDB's own checkpoint, no row
    changes), so no stale log is beside the file that takes the name."""
    wal = path.with_name(path.name + ".wal")
    if not wal.exists():
        return
    con = connect(path, read_only=False)
    try:
        con.execute("CHECKPOINT")
    finally:
        con.close()
    if wal.exists():
        raise CueshiftError(
            f"{path}: its write-ahead log {wal.name} could not be folded in; nothing upgraded"
        )


def _build(work: Path, path: Path) -> CopiedRows:
    """The upgraded database in ``work``: current schema, the old rows, one transaction."""
    con = connect(work, read_only=False)
    try:
        con.execute("ATTACH ? AS " + OLD + " (READ_ONLY)", [str(path)])
        with transaction(con):
            con.execute(sql_text("schema.sql"))
            copied = copy_rows(con, str(path))
            derive_invalid_reasons(con, copied)
            create_views(con)
        con.execute(f"DETACH {OLD}")
        con.execute("CHECKPOINT")
    except duckdb.Error as exc:
        close_quietly(con)
        raise CueshiftError(f"{path}: cannot upgrade: {str(exc).strip().splitlines()[0]}") from None
    except BaseException:
        close_quietly(con)
        raise
    con.close()
    with work.open("rb") as handle:
        os.fsync(handle.fileno())
    return copied


def _keep(path: Path, backup: Path) -> None:
    """``backup`` becomes the old file: a hard link (instant), else a copy renamed into place."""
    staged = backup.with_name(f".{backup.name}.partial")
    staged.unlink(missing_ok=True)
    try:
        os.link(path, staged)
    except OSError:
        shutil.copyfile(path, staged)
    os.replace(staged, backup)
    staged.unlink(missing_ok=True)  # rename does nothing when both are links of one file already


def _sync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)

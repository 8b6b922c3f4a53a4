"""``cueshift show-study``, ``merge`` and ``upgrade`` as functions: the resolved study as a dict,
shard databases merged, an old database upgraded, with the commands' one-line errors."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cueshift.api._locate import DEFAULT, database_named, load_spec, one_line_errors
from cueshift.errors import CueshiftError

if TYPE_CHECKING:
    from cueshift.store.upgrade import Upgrade


@one_line_errors
def show_study(study: str | Path = DEFAULT) -> dict[str, Any]:
    """The fully resolved study (every default filled in), as ``cueshift show-study`` prints it.

    The dict is the command's JSON read back (``json.dumps`` of it is the command's text): paths
    and other values are JSON's strings, numbers, lists and dicts.

    Raises
    ------
    CueshiftError
        A missing or invalid study file (the command's one line).

    Examples
    --------
    >>> import cueshift as cs
    >>> default = cs.show_study()
    >>> default["name"], default["design"], default["models"][0]["backend"]
    ('default', 'stylisticbias', 'simulated')
    """
    import json

    loaded: dict[str, Any] = json.loads(load_spec(study).model_dump_json())
    return loaded


@one_line_errors
def merge(output: str | Path, shards: Sequence[str | Path], *, quiet: bool = True) -> dict[str, int]:
    """Merge shard databases (``infer(shard="K/N")``) into ``output``, as ``cueshift merge``.

    All or nothing: ``output`` is created if needed, its rows are kept; a row present with
    different content in two databases is refused and nothing is written.

    Returns
    -------
    dict of str to int
        Rows added per table (``quiet=False`` prints them as the command does).

    Raises
    ------
    CueshiftError
        No shards, a missing, damaged or foreign database, another schema version or study,
        conflicting rows (the command's one line).

    Examples
    --------
    >>> shards = ["runs/default.shard-1-of-2.duckdb", "runs/default.shard-2-of-2.duckdb"]
    >>> cs.merge("runs/default.duckdb", shards)  # doctest: +SKIP
    {'judgment': 20700, ...}
    """
    from cueshift._console import console_for
    from cueshift.store import merge_databases

    if isinstance(shards, (str, Path)):
        raise CueshiftError(f"shards={str(shards)!r}: give a list of shard databases")
    added = merge_databases(Path(output), [Path(shard) for shard in shards])
    line = ", ".join(f"{table}: +{n:,}" for table, n in added.items()) + f" -> {output}"
    console_for(quiet=quiet).print(line, markup=False)
    return added


@one_line_errors
def upgrade(study: str | Path = DEFAULT, *, db: str | Path | None = None, quiet: bool = True) -> Upgrade:
    """Upgrade a study database of an older schema version to the current one, as ``cueshift upgrade``.

    Every row is kept (checked row for row); result tables are dropped (run ``analyze`` again).
    The old file is kept as ``<name>.schema-v<N>.duckdb``.

    Parameters
    ----------
    study, db
        The database ``db``, the study then not read; else the ``database`` of ``study``, a study
        file (``.toml``) or ``"default"``; else ``study`` itself, a study database. As
        ``cueshift upgrade --study S --db D`` (docs/decisions.md D84).
    quiet
        Print nothing (False: the command's line).

    Returns
    -------
    Upgrade
        ``path``, the ``version`` it had, the ``backup`` kept (None when already current) and
        ``summary()``, the command's line.

    Raises
    ------
    CueshiftError
        Without ``db``, a missing or invalid study file; no such database, not a whole DuckDB
        database, in use, a version it cannot upgrade.

    Examples
    --------
    >>> cs.upgrade(db="runs/old.duckdb").summary()  # doctest: +SKIP
    'runs/old.duckdb: schema version 4 -> 5; judgment: 20,700 rows kept; ...'
    """
    path = database_named(study, db)  # a bad study file: one line before the store loads (D93)
    from cueshift._console import console_for
    from cueshift.store.upgrade import upgrade_database

    done = upgrade_database(path)
    console_for(quiet=quiet).print(done.summary(), markup=False, highlight=False, soft_wrap=True)
    return done

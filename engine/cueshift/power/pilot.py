"""A pilot study database, opened read-only and checked before anything is estimated from it.

A pilot is a study database of the design being planned, usually a few faces of the real model
(``cueshift infer --limit`` or a small ``[image_set] size``). Which design wrote it is read from
its ``run`` records (the study file each run stored); a database written by another design, one
with no answer, or a file that is not a study database is refused with one line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import duckdb
import polars as pl

from cueshift import store
from cueshift.errors import CueshiftError
from cueshift.study.config import DEFAULT_DESIGN

#: The table each design's answers are stored in (a pilot with no row there has nothing to estimate).
ANSWER_TABLES = {"pairwise": "pairwise_trial"}


@dataclass(frozen=True)
class Pilot:
    """An open pilot database: its path, design, models and measured seconds per answer."""

    path: Path
    con: duckdb.DuckDBPyConnection
    design: str
    models: tuple[str, ...]
    seconds_per_answer: dict[str, float]

    def query(self, sql: str, params: list[object] | None = None) -> pl.DataFrame:
        return store.query(self.con, sql, params)

    def close(self) -> None:
        self.con.close()

    def label(self) -> str:
        return f"pilot {self.path}"


def _designs(con: duckdb.DuckDBPyConnection) -> set[str]:
    rows = con.execute("SELECT config FROM run").fetchall()
    found = set()
    for (config,) in rows:
        try:
            found.add(str(json.loads(config).get("design", DEFAULT_DESIGN)))
        except (TypeError, ValueError, AttributeError):
            continue
    return found


def _seconds_per_answer(con: duckdb.DuckDBPyConnection, table: str) -> dict[str, float]:
    """Mean stored latency per answer and model (the backends store each answer's share of its batch)."""
    rows = con.execute(
        f"SELECT model_id, avg(latency_ms) FROM {table} GROUP BY model_id HAVING avg(latency_ms) > 0"
    ).fetchall()
    return {str(m): float(ms) / 1000.0 for m, ms in rows}


def open_pilot(path: str | Path, design: str) -> Pilot:
    """Open ``path`` read-only as a pilot of ``design``.

    Raises
    ------
    CueshiftError
        No such file, not a cueshift study database, a pilot of another design, or no answers.
    """
    path = Path(path)
    if not path.is_file():
        raise CueshiftError(f"{path}: no such pilot database")
    try:
        con = duckdb.connect(str(path), read_only=True)
    except duckdb.Error as exc:
        raise CueshiftError(f"{path}: not a DuckDB study database ({str(exc).splitlines()[0]})") from None
    try:
        tables = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
        if not {"run", "judgment", "cueshift_meta"} <= tables:
            raise CueshiftError(f"{path}: not a cueshift study database (no run/judgment tables)")
        designs = _designs(con)
        if designs and designs != {design}:
            raise CueshiftError(
                f"{path}: the pilot is a {'/'.join(sorted(designs))} study; this study's design is "
                f"{design!r}: plan from a pilot of the same design"
            )
        table = ANSWER_TABLES.get(design, "judgment")
        models = tuple(
            str(r[0]) for r in con.execute(f"SELECT DISTINCT model_id FROM {table} ORDER BY 1").fetchall()
        )
        if not models:
            raise CueshiftError(f"{path}: the pilot holds no answers (table {table} is empty); run it first")
        return Pilot(path, con, design, models, _seconds_per_answer(con, table))
    except BaseException:
        con.close()
        raise


__all__ = ["ANSWER_TABLES", "Pilot", "open_pilot"]

"""``cueshift status``: how far a study's latest run is, readable while ``cueshift infer`` runs.

Everything is read from the study database, or from the snapshot a running ``infer`` publishes
(:mod:`cueshift.store.snapshot`): the latest ``run`` record (its planned answers and start), the
answers of every answer table per model (those created since the run started are the run's), and
the ``request_failure`` rows per model. The rate is the run's answers over the time from its start
to the moment read (the snapshot's time while it runs); the ETA is what remains at that rate.

A ``cueshift build`` run (its ``versions`` JSON holds ``"stage": "build"``) is no inference run:
its progress is read from the ``generation`` table instead (slots kept of those planned, and the
run's tries by outcome).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace
from pathlib import Path

import duckdb

from cueshift import store
from cueshift.errors import CueshiftError
from cueshift.execution.build_status import BuildStatus, is_build, read_build
from cueshift.store.snapshot import ANSWER_TABLES, Snapshot, readable


@dataclass(frozen=True)
class ModelStatus:
    """One model's answers: stored in all, stored by the latest run, requests given up on."""

    model_id: str
    stored: int
    this_run: int
    failed_this_run: int
    failed_units: int  # units with a failure in any run (request_failure)
    #: whether ``cueshift check-invariance`` flagged the model's answers in any comparison (None:
    #: not checked; docs/invariance.md)
    depends_on_batching: bool | None = None


@dataclass(frozen=True)
class StudyStatus:
    """The latest run of a study database as read at ``as_of`` (see the module docstring)."""

    database: Path
    snapshot: Snapshot | None
    state: str  # 'running' | 'finished' | 'stopped' (no finish recorded, not running) | 'no run'
    started_at: dt.datetime | None
    as_of: dt.datetime
    planned: int
    models: tuple[ModelStatus, ...]
    #: one line per model and comparison whose re-asked answers differ beyond the bound
    #: (``result_invariance`` of ``cueshift check-invariance``; docs/invariance.md)
    invariance_flags: tuple[str, ...] = ()
    #: the latest run's figures when it is a ``cueshift build`` (None for an inference run)
    build: BuildStatus | None = None

    @property
    def stored(self) -> int:
        return sum(m.stored for m in self.models)

    @property
    def done(self) -> int:
        """Answers the latest run has handled: stored or given up on."""
        return sum(m.this_run + m.failed_this_run for m in self.models)

    @property
    def rate(self) -> float | None:
        """Answers per second of the latest run (None before any)."""
        if self.started_at is None or self.done == 0:
            return None
        seconds = (self.as_of - self.started_at).total_seconds()
        return self.done / seconds if seconds > 0 else None

    @property
    def eta_seconds(self) -> float | None:
        """Seconds until the running run has asked every planned answer, at :attr:`rate`."""
        rate = self.rate
        if self.state != "running" or rate is None:
            return None
        return max(self.planned - self.done, 0) / rate


def study_status(path: Path) -> StudyStatus:
    """Read the status of the study database ``path`` (its snapshot while ``infer`` holds it)."""
    path = Path(path)
    if not path.is_file():
        raise CueshiftError(f"{path}: no such study database (run `cueshift infer` first)")
    source, snapshot = readable(path)
    con = store.open_study(source, read_only=True)
    try:
        run = con.execute(
            "SELECT run_id, started_at, finished_at, n_planned, versions, config FROM run "
            "ORDER BY started_at DESC LIMIT 1"
        ).fetchall()
        if not run:
            now = dt.datetime.now()
            return StudyStatus(path, snapshot, "no run", None, now, 0, _models(con, None, None))
        run_id, started_at, finished_at, planned, versions, config = run[0]
        if snapshot is not None:
            state, as_of = "running", snapshot.taken_at
        elif finished_at is not None:
            state, as_of = "finished", finished_at
        else:
            state, as_of = "stopped", dt.datetime.now()
        models = _with_invariance(con, _models(con, run_id, started_at))
        flags = _invariance_flags(con)
        build = read_build(con, run_id, int(planned), config) if is_build(versions) else None
        return StudyStatus(path, snapshot, state, started_at, as_of, int(planned), models, flags, build)
    finally:
        con.close()


def _models(
    con: duckdb.DuckDBPyConnection, run_id: str | None, started_at: dt.datetime | None
) -> tuple[ModelStatus, ...]:
    present = {row[0] for row in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    since = started_at or dt.datetime.max
    counts: dict[str, list[int]] = {
        row[0]: [0, 0, 0, 0] for row in con.execute("SELECT model_id FROM model ORDER BY model_id").fetchall()
    }
    for table, column in ANSWER_TABLES.items():
        if table not in present:
            continue
        only_models = " WHERE rater_kind = 'model'" if table == "rating" else ""
        for model_id, stored, this_run in con.execute(
            f"SELECT {column}, count(*), count(*) FILTER (WHERE created_at >= ?) FROM {table}"
            f"{only_models} GROUP BY 1",
            [since],
        ).fetchall():
            tally = counts.setdefault(model_id, [0, 0, 0, 0])
            tally[0] += int(stored)
            tally[1] += int(this_run)
    if "request_failure" in present:
        for model_id, failed_this_run, failed_units in con.execute(
            "SELECT model_id, count(*) FILTER (WHERE run_id = ?), count(DISTINCT (unit_table, unit_key)) "
            "FROM request_failure GROUP BY 1",
            [run_id],
        ).fetchall():
            tally = counts.setdefault(model_id, [0, 0, 0, 0])
            tally[2], tally[3] = int(failed_this_run), int(failed_units)
    return tuple(
        ModelStatus(model_id, stored, this_run, failed, units)
        for model_id, (stored, this_run, failed, units) in sorted(counts.items())
    )


def _has_invariance(con: duckdb.DuckDBPyConnection) -> bool:
    return bool(
        con.execute("SELECT 1 FROM duckdb_tables() WHERE table_name = 'result_invariance'").fetchall()
    )


def _with_invariance(
    con: duckdb.DuckDBPyConnection, models: tuple[ModelStatus, ...]
) -> tuple[ModelStatus, ...]:
    """``models`` with :attr:`ModelStatus.depends_on_batching` from ``result_invariance``."""
    if not _has_invariance(con):
        return models
    flagged = dict(
        con.execute("SELECT model_id, bool_or(flagged) FROM result_invariance GROUP BY 1").fetchall()
    )
    return tuple(replace(m, depends_on_batching=flagged.get(m.model_id)) for m in models)


def _invariance_flags(con: duckdb.DuckDBPyConnection) -> tuple[str, ...]:
    """The flagged rows of ``result_invariance`` (none when the check has not run), as lines."""
    if not _has_invariance(con):
        return ()
    rows = con.execute(
        "SELECT model_id, comparison, n_identical, n, bound FROM result_invariance WHERE flagged "
        "ORDER BY model_id, comparison"
    ).fetchall()
    return tuple(
        f"model {model_id!r}: answers depend on batching: {same} of {n} sampled judgments identical "
        f"{comparison.replace('_', ' ')} ({same / n:.1%} < bound {bound:.0%}; cueshift check-invariance)"
        for model_id, comparison, same, n, bound in rows
    )


__all__ = ["BuildStatus", "ModelStatus", "StudyStatus", "study_status"]

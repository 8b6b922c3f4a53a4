"""The one runner: find what is not stored yet, ask the backends in batches, store every answer once.

Every design runs through :func:`run_study`: the design's ``workload(study)`` describes its work
(:class:`~cueshift.designs.work.Workload`) and the runner does the rest the same way for
judgments, two-image trials and ratings.

Guarantees
----------
* **Exactly once.** Each batch of answers is written in one transaction, keyed by the unit's
  primary key (e.g. model, image, scenario, ordering, seed). A killed process loses at most
  the batch in flight, which the next run asks again; nothing is ever stored twice.
  Batches are sized to take about two seconds at the measured rate, up to the study's
  ``batch_size`` rows (:class:`~cueshift.execution.batching.BatchSizer`).
* **Executors.** The backends run in this process (:class:`~cueshift.execution.executor.LocalExecutor`)
  or in a pool of Ray actors per model (:mod:`cueshift.execution.ray_executor`); finding the pending units,
  writing and the run record are the same either way.
* **Resume.** A run asks only the units missing from the database.
* **Shards.** ``--shard K/N`` keeps the units whose stable hash (of the unit kind's
  ``shard_by`` value: an identity, a pair of images, an image) falls in shard K and writes
  to its own database file; :func:`cueshift.store.merge_databases` joins shard files into one.
* **Nothing written on bad input.** Backends are built, and checked for the methods the
  design needs, before the database is created or touched.
* **Stopped from outside.** Ctrl-C or SIGTERM rolls back the batch in flight, closes the
  database (no WAL left) and raises :class:`~cueshift.execution.interrupts.RunInterrupted`.
* **Readable while it runs.** A snapshot of the database is published after each batch at most
  every ``snapshot_every`` seconds (:mod:`cueshift.store.snapshot`), removed when the run ends.
"""

from __future__ import annotations

import json
import sys
import time
import zlib
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

import duckdb
import polars as pl
from rich.console import Console

from cueshift import store
from cueshift.designs.registry import design_of
from cueshift.designs.work import UnitKind, Workload
from cueshift.errors import ConfigError
from cueshift.execution.executor import Executor, LocalExecutor
from cueshift.execution.failures import MAX_FAILED_RUNS, FailureTally, drop_given_up, split_failures
from cueshift.execution.interrupts import RunInterrupted, is_interrupt
from cueshift.execution.preflight import check_study_inputs
from cueshift.execution.progress import progress_bar
from cueshift.store.embedding_cache import DuckDBEmbeddingCache
from cueshift.store.files import close_quietly, remove_database
from cueshift.store.snapshot import SNAPSHOT_SECONDS, SnapshotPublisher
from cueshift.study.config import ModelConfig, Study


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (1-based) of ``count``."""

    index: int = 1
    count: int = 1

    @classmethod
    def parse(cls, text: str) -> Shard:
        try:
            index_text, count_text = text.split("/")
            shard = cls(int(index_text), int(count_text))
        except ValueError:
            raise ConfigError(f"--shard {text!r}: expected K/N, e.g. 2/4") from None
        if not 1 <= shard.index <= shard.count:
            raise ConfigError(f"--shard {text!r}: K must be between 1 and N")
        return shard

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def owns(self, values: pl.Series) -> pl.Series:
        """Stable assignment of values to shards (crc32, independent of library versions)."""
        buckets = [zlib.crc32(str(v).encode()) % self.count for v in values.to_list()]
        return pl.Series(buckets, dtype=pl.Int64) == (self.index - 1)

    def keep(self, frame: pl.DataFrame, column: str) -> pl.DataFrame:
        """The rows of ``frame`` whose ``column`` value this shard owns (all rows when unsharded)."""
        if self.count == 1 or frame.height == 0:
            return frame
        return frame.filter(self.owns(frame[column]))

    def database_path(self, base: Path) -> Path:
        if self.count == 1:
            return base
        return base.with_name(f"{base.stem}.shard-{self.index}-of-{self.count}{base.suffix}")


@dataclass(frozen=True)
class RunSummary:
    """What a run did: its id and database, answers planned, written, and stored before it."""

    run_id: str
    database: Path
    n_planned: int
    n_written: int
    n_stored_before: int
    seconds: float
    #: requests the backends gave up on in this run (recorded in ``request_failure``)
    n_failed: int = 0
    #: what to print after the run: failures, server identity, consistency probe
    notes: tuple[str, ...] = ()


def model_frame(models: list[ModelConfig]) -> pl.DataFrame:
    """The ``model`` rows of the study's models (settings as sorted JSON; no secrets)."""
    return pl.DataFrame(
        {
            "model_id": [m.model_id for m in models],
            "backend": [m.backend for m in models],
            "checkpoint": [m.checkpoint for m in models],
            "revision": pl.Series([m.revision for m in models], dtype=pl.String),
            "settings": [json.dumps(m.settings, sort_keys=True) for m in models],
        }
    )


def run_study(
    study: Study,
    *,
    database: Path | None = None,
    shard: Shard = Shard(),
    progress: bool = True,
    console: Console | None = None,
    max_judgments: int | None = None,
    executor: Executor | None = None,
    snapshot_every: float = SNAPSHOT_SECONDS,
) -> RunSummary:
    """Run (or resume) everything ``study``'s design asks of its models that is not stored yet.

    Parameters
    ----------
    study
        A study of any registered design.
    database
        Study database (default ``study.database_path``; a shard writes beside it).
    shard
        The shard to run (default: everything).
    progress, console
        Progress bars on ``console``.
    max_judgments
        Stop after this many new answers (smoke tests).
    executor
        Where the backends run (default: this process; see :mod:`cueshift.execution.executor`).
    snapshot_every
        Seconds between snapshots readers open while the run holds the database (0: none).

    Returns
    -------
    RunSummary
        Counts of the run (``n_written`` sums every kind of answer written).
    """
    check_study_inputs(study)  # settings first: the workload may write caches (placebos, demo faces)
    workload = design_of(study).workload(study, progress=progress)
    return run_workload(
        workload,
        study,
        database=database,
        shard=shard,
        progress=progress,
        console=console,
        max_judgments=max_judgments,
        executor=executor,
        snapshot_every=snapshot_every,
    )


def run_workload(
    workload: Workload,
    study: Study,
    *,
    database: Path | None = None,
    shard: Shard = Shard(),
    progress: bool = True,
    console: Console | None = None,
    max_judgments: int | None = None,
    max_failed_runs: int = MAX_FAILED_RUNS,
    executor: Executor | None = None,
    snapshot_every: float = SNAPSHOT_SECONDS,
) -> RunSummary:
    """Ask and store ``workload`` for every model of ``study`` (see :func:`run_study`); units that
    failed in ``max_failed_runs`` runs are not asked again (:mod:`cueshift.execution.failures`).
    ``executor`` runs the backends (default :class:`~cueshift.execution.executor.LocalExecutor`)."""
    started = time.perf_counter()
    db_path = shard.database_path(Path(database) if database else study.database_path)
    executor = executor if executor is not None else LocalExecutor()
    con: duckdb.DuckDBPyConnection | None = None
    existed = db_path.exists()
    n_written = 0
    stored_at_start: int | None = None  # known once the pending units are (for the interrupt's message)
    answer_tables: list[str] = []
    snapshots = SnapshotPublisher(db_path, snapshot_every)
    try:
        executor.start(study, workload)  # backends built and checked before the database is touched
        con = store.open_study(db_path)  # checked first: a damaged file or bad folder is not touched
        executor.attach_cache(DuckDBEmbeddingCache(con))
        for table, (rows, key) in workload.dimensions.items():
            store.upsert_dimension(con, table, rows, key)
        store.upsert_dimension(con, "model", model_frame(study.models), "model_id")
        tally = FailureTally()
        pending = []
        for model in study.models:
            per_model = []
            for kind in workload.units:
                missing = _missing(
                    con, kind, shard.keep(executor.units(model, kind), kind.shard_by), model.model_id
                )
                missing, given_up = drop_given_up(con, kind, missing, model.model_id, max_failed_runs)
                tally.given_up += given_up
                per_model.append(missing)
            pending.append(per_model)
        n_planned = sum(units.height for per_model in pending for units in per_model)
        if max_judgments is not None:
            n_planned = min(n_planned, max_judgments)
        answer_tables = list(dict.fromkeys(kind.table for kind in workload.units))
        n_stored_before = stored_at_start = sum(_count(con, table) for table in answer_tables)
        record = store.start_run(
            con, store.RunRecord(study.name, str(shard), study.model_dump_json(), n_planned)
        )
        snapshots.maybe_publish(con)  # readers see the run record before the first batch
        n_asked = 0
        with progress_bar(progress, console) as bar:
            task = bar.add_task("asking", total=n_planned, rate="") if bar else None
            for model, per_model in zip(study.models, pending, strict=True):
                for kind, units in zip(workload.units, per_model, strict=True):
                    for batch, answers in executor.answer(model, kind, units, n_planned - n_asked):
                        n_asked += batch.height
                        batch, answers, failed = split_failures(
                            kind, batch, answers, model.model_id, record.run_id
                        )
                        frames = {"request_failure": failed}
                        if batch.height:
                            frames[kind.table] = kind.parse(batch, answers, model.model_id, record.run_id)
                        store.write_tables(con, frames)
                        tally.add(failed)
                        n_written += batch.height
                        snapshots.maybe_publish(con)
                        if bar is not None and task is not None:
                            elapsed = max(time.perf_counter() - started, 1e-9)
                            rate = f"{n_written / elapsed:,.0f} {kind.name}/s"
                            bar.update(
                                task, advance=batch.height + failed.height, description=kind.name, rate=rate
                            )
        keys = {table.name: table.key for table in store.study_tables(con)}
        for stored in workload.stored:
            store.insert_missing(
                con, stored.table, shard.keep(stored.rows, stored.shard_by), keys[stored.table]
            )
        reports = executor.reports()
        notes = [
            *tally.lines(max_failed_runs),
            *(line for r in reports.values() for line in r.get("lines", [])),
            *([snapshots.stopped] if snapshots.stopped else []),
        ]
        store.finish_run(con, record, n_written, json.dumps(reports, sort_keys=True) if reports else None)
    except BaseException as exc:
        n_stored = None
        if con is not None:
            if is_interrupt(exc) and stored_at_start is not None:  # what is stored, as committed
                with suppress(Exception):  # (a batch may have committed before the interrupt)
                    n_stored = sum(_count(con, table) for table in answer_tables)
            close_quietly(con)  # the batch in flight was rolled back; closing checkpoints
            con = None
            if not existed and n_written == 0 and not n_stored:  # a failed first run leaves none
                remove_database(db_path)
                n_stored = None
        if is_interrupt(exc):
            n_this_run = (
                n_written if n_stored is None or stored_at_start is None else n_stored - stored_at_start
            )
            raise RunInterrupted(db_path, n_stored, n_this_run) from exc
        raise
    finally:  # the database first: Ray's shutdown resets SIGTERM to its default (kill at once)
        stopping = sys.exc_info()[1]
        try:
            if con is not None:
                con.close()
        finally:
            snapshots.remove()  # after the close: readers switch back to the database itself
            try:
                executor.close()
            except BaseException:  # an interrupt landing in Ray's shutdown must not hide what is stored
                if not isinstance(stopping, RunInterrupted):
                    raise
    seconds = time.perf_counter() - started
    return RunSummary(
        record.run_id, db_path, n_planned, n_written, n_stored_before, seconds, tally.failed, tuple(notes)
    )


def _missing(
    con: duckdb.DuckDBPyConnection, kind: UnitKind, units: pl.DataFrame, model_id: str
) -> pl.DataFrame:
    """The units of one model not stored yet, in the design's order, with the columns the backend gets.

    The anti-join runs inside DuckDB: stored answers are never pulled into Python.
    """
    key = [column for column in kind.key if column != kind.model_column]
    columns = list(kind.columns) if kind.columns is not None else units.columns
    con.register("cueshift_wanted", units.with_row_index("__order").to_arrow())
    try:
        missing = store.query(
            con,
            f"""
            SELECT w.* FROM cueshift_wanted AS w
            ANTI JOIN (SELECT {", ".join(key)} FROM {kind.table} WHERE {kind.model_column} = ?) AS s
                USING ({", ".join(key)})
            ORDER BY w.__order
            """,
            [model_id],
        )
    finally:
        con.unregister("cueshift_wanted")
    return missing.drop("__order").cast(units.schema).select(columns)


def _count(con: duckdb.DuckDBPyConnection, table: str) -> int:
    rows = con.execute(f"SELECT count(*) FROM {table}").fetchall()
    return int(rows[0][0])


__all__ = ["RunSummary", "Shard", "model_frame", "run_study", "run_workload"]

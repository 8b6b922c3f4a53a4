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
  ``shard_by`` value: a face, a pair of images, an image) falls in shard K and writes
  to its own database file; :func:`cueshift.store.merge_databases` joins shard files into one.
* **Nothing written on bad input.** Backends are built, and checked for the methods the
  design needs, before the database is created or touched.
* **Stopped from outside.** Ctrl-C or SIGTERM rolls back the batch in flight, closes the
  database (no WAL left) and raises :class:`~cueshift.execution.interrupts.RunInterrupted`.
* **Readable while it runs.** A snapshot of the database is published after each batch at most
  every ``RunOptions.snapshot_every`` seconds (:mod:`cueshift.store.snapshot`), removed when the run ends.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import duckdb
import polars as pl
from rich.console import Console

from cueshift import store
from cueshift.designs.registry import design_of
from cueshift.designs.work import Workload
from cueshift.execution.batch_writer import BatchWriter
from cueshift.execution.executor import Executor
from cueshift.execution.failures import MAX_FAILED_RUNS, FailureTally
from cueshift.execution.pending import count_stored, pending_units
from cueshift.execution.preflight import check_study_inputs
from cueshift.execution.progress import progress_bar
from cueshift.execution.run_options import RunOptions
from cueshift.execution.run_state import OpenRun
from cueshift.execution.shard import Shard
from cueshift.store.embedding_cache import DuckDBEmbeddingCache, older_encoding_notes
from cueshift.store.snapshot import SnapshotPublisher
from cueshift.study.config import ModelConfig, Study


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
    options: RunOptions = RunOptions(),
    *,
    console: Console | None = None,
    executor: Executor | None = None,
) -> RunSummary:
    """Run (or resume) everything ``study``'s design asks of its models that is not stored yet.

    Parameters
    ----------
    study
        A study of any registered design.
    options
        How the run executes: database, shard, answer limit, progress bars, executor, snapshots
        (:class:`~cueshift.execution.run_options.RunOptions`; default: the whole study, here).
    console
        Where the progress bars go.
    executor
        An executor built already (e.g. a test's); default: the one ``options`` names, built first.

    Returns
    -------
    RunSummary
        Counts of the run (``n_written`` sums every kind of answer written).
    """
    executor = executor if executor is not None else options.build_executor()
    # settings and checkpoints first: the workload may write caches (placebos, demo faces)
    check_study_inputs(study, loads_here=getattr(executor, "loads_backends_here", True))
    workload = design_of(study).workload(study, progress=options.progress)
    return run_workload(workload, study, options, console=console, executor=executor)


def run_workload(
    workload: Workload,
    study: Study,
    options: RunOptions = RunOptions(),
    *,
    console: Console | None = None,
    executor: Executor | None = None,
) -> RunSummary:
    """Ask and store ``workload`` for every model of ``study`` (see :func:`run_study`); units that
    failed in :data:`~cueshift.execution.failures.MAX_FAILED_RUNS` runs are not asked again
    (:mod:`cueshift.execution.failures`). ``executor`` runs the backends (default: the one
    ``options`` names)."""
    started = time.perf_counter()
    shard = options.shard
    db_path = shard.database_path(options.database or study.database_path)
    executor = executor if executor is not None else options.build_executor()
    run = OpenRun(db_path, executor, SnapshotPublisher(db_path, options.snapshot_every))
    counts = run.counts
    try:
        executor.start(study, workload)  # backends built and checked before the database is touched
        con = run.open()
        executor.attach_cache(DuckDBEmbeddingCache(con))
        _store_dimensions(con, workload, study.models)
        tally = FailureTally()
        pending = pending_units(
            con, executor, study.models, workload, shard=shard, max_failed_runs=MAX_FAILED_RUNS, tally=tally
        )
        n_planned = sum(units.height for per_model in pending for units in per_model)
        if options.limit is not None:
            n_planned = min(n_planned, options.limit)
        counts.answer_tables = list(dict.fromkeys(kind.table for kind in workload.units))
        n_stored_before = counts.stored_at_start = count_stored(con, counts.answer_tables)
        record = store.start_run(
            con, store.RunRecord(study.name, str(shard), study.model_dump_json(), n_planned)
        )
        run.snapshots.maybe_publish(con)  # readers see the run record before the first batch
        with progress_bar(options.progress and n_planned > 0, console) as bar:  # none: nothing to ask
            writer = BatchWriter(
                con,
                record.run_id,
                counts=counts,
                tally=tally,
                snapshots=run.snapshots,
                bar=bar,
                n_planned=n_planned,
                started=started,
            )
            writer.ask_all(executor, study.models, workload.units, pending)
        _store_workload_rows(con, workload, shard)
        notes = _finish(con, executor, record, counts.n_written, tally, run.snapshots)
        notes = (*notes, *older_encoding_notes(con, study.models))  # CLIP scores of an older encoding
    except BaseException as exc:
        run.stop(exc)  # an interrupt raises RunInterrupted, saying what is stored
        raise
    finally:  # the database first: Ray's shutdown resets SIGTERM to its default (kill at once)
        run.close(sys.exc_info()[1])
    seconds = time.perf_counter() - started
    return RunSummary(
        record.run_id, db_path, n_planned, counts.n_written, n_stored_before, seconds, tally.failed, notes
    )


def _store_dimensions(con: duckdb.DuckDBPyConnection, workload: Workload, models: list[ModelConfig]) -> None:
    """The workload's dimension rows and the study's models, before any answer refers to them (all
    checked first, then written in one transaction: a changed model writes no new face either)."""
    store.upsert_dimensions(con, {**workload.dimensions, "model": (model_frame(models), "model_id")})


def _store_workload_rows(con: duckdb.DuckDBPyConnection, workload: Workload, shard: Shard) -> None:
    """The rows the design stores without asking (the shard's, those not stored yet)."""
    keys = {table.name: table.key for table in store.study_tables(con)}
    for stored in workload.stored:
        store.insert_missing(con, stored.table, shard.keep(stored.rows, stored.shard_by), keys[stored.table])


def _finish(
    con: duckdb.DuckDBPyConnection,
    executor: Executor,
    record: store.RunRecord,
    n_written: int,
    tally: FailureTally,
    snapshots: SnapshotPublisher,
) -> tuple[str, ...]:
    """Record the run as finished (with the executor's reports); the notes to print after it."""
    reports = executor.reports()
    notes = (
        *tally.lines(MAX_FAILED_RUNS),
        *(line for r in reports.values() for line in r.get("lines", [])),
        *([snapshots.stopped] if snapshots.stopped else []),
    )
    store.finish_run(con, record, n_written, json.dumps(reports, sort_keys=True) if reports else None)
    return notes


__all__ = ["RunOptions", "RunSummary", "model_frame", "run_study", "run_workload"]

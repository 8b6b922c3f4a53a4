"""Run records: one ``run`` row per ``cueshift infer``, written when it starts and completed when it ends."""

from __future__ import annotations

import datetime as dt
import json
import platform
import uuid
from dataclasses import dataclass, field
from importlib import metadata

import duckdb
import polars as pl

from cueshift.inference.embedding_cache import CLIP_ENCODING
from cueshift.store.writes import write_tables

#: Packages whose versions every run records.
RECORDED_PACKAGES: tuple[str, ...] = (
    "cueshift",
    "duckdb",
    "polars",
    "pandera",
    "numpy",
    "torch",
    "transformers",
)


#: The ``versions`` entry naming the CLIP backend's embedding encoding
#: (:data:`~cueshift.inference.embedding_cache.CLIP_ENCODING`); runs before it was recorded have none.
CLIP_ENCODING_ENTRY = "clip_encoding"


def versions() -> dict[str, str]:
    """Python's version, those of :data:`RECORDED_PACKAGES` that are installed, and the CLIP
    backend's embedding encoding (:data:`CLIP_ENCODING_ENTRY`)."""
    found = {"python": platform.python_version(), CLIP_ENCODING_ENTRY: str(CLIP_ENCODING)}
    for package in RECORDED_PACKAGES:
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            continue
    return found


#: The ``stage`` entry of the ``versions`` JSON that marks a ``cueshift build`` run (an infer
#: run's has none); ``cueshift status`` reads a build's progress from ``generation`` instead.
BUILD_STAGE = "build"


def build_versions() -> str:
    """The ``versions`` JSON of a build run: :func:`versions` and ``"stage": "build"``."""
    return json.dumps({**versions(), "stage": BUILD_STAGE}, sort_keys=True)


@dataclass(frozen=True)
class RunRecord:
    """The ``run`` row of one run.

    Attributes
    ----------
    study_name, shard, config
        The study, the shard (``'K/N'``; ``'1/1'`` unsharded) and the resolved study as JSON.
    n_planned
        Answers the run intends to ask (after any ``--limit``).
    run_id, started_at, versions
        Filled in when the record is made.
    """

    study_name: str
    shard: str
    config: str
    n_planned: int
    run_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    started_at: dt.datetime = field(default_factory=dt.datetime.now)
    versions: str = field(default_factory=lambda: json.dumps(versions(), sort_keys=True))

    def frame(self) -> pl.DataFrame:
        """The row as it is stored (``finished_at``, ``n_written``, ``backend_report`` still NULL)."""
        return pl.DataFrame(
            {
                "run_id": [self.run_id],
                "study_name": [self.study_name],
                "shard": [self.shard],
                "config": [self.config],
                "versions": [self.versions],
                "started_at": pl.Series([self.started_at], dtype=pl.Datetime("us")),
                "finished_at": pl.Series([None], dtype=pl.Datetime("us")),
                "n_planned": pl.Series([self.n_planned], dtype=pl.Int64),
                "n_written": pl.Series([None], dtype=pl.Int64),
                "backend_report": pl.Series([None], dtype=pl.String),
            }
        )


def start_run(con: duckdb.DuckDBPyConnection, record: RunRecord) -> RunRecord:
    """Store the ``run`` row of ``record`` (validated) and return it."""
    write_tables(con, {"run": record.frame()})
    return record


def finish_run(
    con: duckdb.DuckDBPyConnection, record: RunRecord, n_written: int, backend_report: str | None = None
) -> None:
    """Complete the ``run`` row: when it ended, how many answers it wrote and (JSON, per model)
    what the backends reported."""
    con.execute(
        "UPDATE run SET finished_at = ?, n_written = ?, backend_report = ? WHERE run_id = ?",
        [dt.datetime.now(), n_written, backend_report, record.run_id],
    )

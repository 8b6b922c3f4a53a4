"""The inference runner: plan what is not stored yet, ask the backend in batches, store every answer once.

Guarantees
----------
* **Exactly once.** Each batch of judgments is written in one transaction, keyed by
  (model, image, scenario, ordering, seed). A killed process loses at most the batch in
  flight, which the next run plans again; nothing is ever stored twice.
* **Resume.** A run plans only the judgments missing from the database.
* **Shards.** ``--shard K/N`` keeps the identities whose stable hash falls in shard K (a face,
  its base and all its variations stay together) and writes to its own database file;
  :func:`merge_databases` joins shard files into one.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import platform
import time
import uuid
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import duckdb
import polars as pl
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from cueshift import store
from cueshift.errors import ConfigError, CueshiftError
from cueshift.images import load_benchmark
from cueshift.images.base import Benchmark
from cueshift.infer.backends import Backend, StudyContext, backend_class
from cueshift.infer.backends.base import ImageRecord
from cueshift.infer.parser import parse_answers
from cueshift.study.config import ModelConfig, Study
from cueshift.study.scenario_sets import SCENARIO_SETS
from cueshift.study.scenarios import (
    ORDERING_BY_ID,
    Scenario,
    prompt_variant_frame,
    scenario_frame,
)

JUDGMENT_KEY = ["model_id", "image_id", "scenario_id", "ordering", "seed"]


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

    def owns(self, identity_ids: pl.Series) -> pl.Series:
        """Stable assignment of identities to shards (crc32, independent of library versions)."""
        buckets = [zlib.crc32(i.encode()) % self.count for i in identity_ids.to_list()]
        return pl.Series(buckets) == (self.index - 1)

    def database_path(self, base: Path) -> Path:
        if self.count == 1:
            return base
        return base.with_name(f"{base.stem}.shard-{self.index}-of-{self.count}{base.suffix}")


@dataclass(frozen=True)
class RunSummary:
    run_id: str
    database: Path
    n_planned: int
    n_written: int
    n_stored_before: int
    seconds: float


def study_scenarios(study: Study) -> tuple[Scenario, ...]:
    scenarios = SCENARIO_SETS[study.scenarios.set]
    if study.scenarios.only is not None:
        keep = set(study.scenarios.only)
        scenarios = tuple(s for s in scenarios if s.scenario_id in keep)
    return scenarios


def model_frame(models: list[ModelConfig]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "model_id": [m.model_id for m in models],
            "backend": [m.backend for m in models],
            "checkpoint": [m.checkpoint for m in models],
            "revision": pl.Series([m.revision for m in models], dtype=pl.String),
            "settings": [json.dumps(m.settings, sort_keys=True) for m in models],
        }
    )


def versions() -> dict[str, str]:
    found = {"python": platform.python_version()}
    for package in ("cueshift", "duckdb", "polars", "pandera", "numpy", "torch", "transformers"):
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            continue
    return found


def write_study_tables(con: duckdb.DuckDBPyConnection, study: Study, benchmark: Benchmark) -> None:
    """Store the study's dimension tables (idempotent; a changed definition is an error)."""
    scenarios = study_scenarios(study)
    orderings = tuple(ORDERING_BY_ID[o] for o in study.prompt.orderings)
    store.upsert_dimension(con, "identity", benchmark.identity, "identity_id")
    store.upsert_dimension(con, "image", benchmark.image, "image_id")
    store.upsert_dimension(con, "scenario", scenario_frame(scenarios, study.scenarios.set), "scenario_id")
    store.upsert_dimension(
        con, "prompt_variant", prompt_variant_frame(study.prompt.template, orderings), "ordering"
    )
    store.upsert_dimension(con, "model", model_frame(study.models), "model_id")


def image_records(benchmark: Benchmark) -> dict[str, ImageRecord]:
    joined = benchmark.image.join(benchmark.identity, on="identity_id", how="left")
    root = benchmark.root
    return {
        row["image_id"]: ImageRecord(
            image_id=row["image_id"],
            identity_id=row["identity_id"],
            path=root / row["path"],
            role=row["role"],
            feature_key=row["feature_key"],
            variation_category=row["variation_category"],
            variation_value=row["variation_value"],
            framing=row["framing"],
            age=row["age"],
            gender=row["gender"],
            ethnicity=row["ethnicity"],
            body_type=row["body_type"],
        )
        for row in joined.iter_rows(named=True)
    }


def plan_judgments(
    con: duckdb.DuckDBPyConnection,
    *,
    model_id: str,
    image_ids: list[str],
    scenario_ids: list[str],
    orderings: list[int],
    seeds: list[int],
) -> pl.DataFrame:
    """All (image, scenario, ordering, seed) of one model not stored yet, grouped by image."""
    wanted = (
        pl.DataFrame({"image_id": image_ids})
        .join(pl.DataFrame({"scenario_id": scenario_ids}), how="cross")
        .join(pl.DataFrame({"ordering": pl.Series(orderings, dtype=pl.Int32)}), how="cross")
        .join(pl.DataFrame({"seed": pl.Series(seeds, dtype=pl.Int32)}), how="cross")
    )
    # The anti-join runs inside DuckDB: stored judgments are never pulled into Python.
    con.register("cueshift_wanted", wanted.to_arrow())
    try:
        missing = store.query(
            con,
            """
            SELECT w.image_id, w.scenario_id, w.ordering, w.seed
            FROM cueshift_wanted AS w
            ANTI JOIN (SELECT image_id, scenario_id, ordering, seed FROM judgment WHERE model_id = ?) AS j
                USING (image_id, scenario_id, ordering, seed)
            ORDER BY w.image_id, w.scenario_id, w.ordering, w.seed
            """,
            [model_id],
        )
    finally:
        con.unregister("cueshift_wanted")
    return missing.with_columns(pl.col("ordering").cast(pl.Int32), pl.col("seed").cast(pl.Int32))


def judgment_rows(
    batch: pl.DataFrame,
    answers_text: list[str],
    latency_ms: list[float],
    p_favorable: list[float | None] | None,
    p_neither: list[float | None] | None,
    *,
    model_id: str,
    run_id: str,
    scenarios: dict[str, Scenario],
) -> pl.DataFrame:
    """Parse the raw answers strictly and shape the rows of the ``judgment`` table."""
    mappings: dict[tuple[str, int], dict[str, str]] = {}
    descriptors = []
    favorable_letters = []
    for scenario_id, ordering_id in batch.select("scenario_id", "ordering").iter_rows():
        ordering = ORDERING_BY_ID[ordering_id]
        key = (scenario_id, ordering_id)
        if key not in mappings:
            mappings[key] = ordering.descriptor_by_letter(scenarios[scenario_id])
        descriptors.append(mappings[key])
        favorable_letters.append(ordering.favorable_letter)
    letters, _reasons = parse_answers(answers_text, descriptors)
    n = batch.height
    letter_series = pl.Series("chosen_letter", letters, dtype=pl.String)
    outcome = (
        pl.when(letter_series.is_null())
        .then(pl.lit("invalid"))
        .when(letter_series == pl.Series(favorable_letters))
        .then(pl.lit("favorable"))
        .otherwise(pl.lit("unfavorable"))
    )
    now = dt.datetime.now()
    return batch.select(
        pl.lit(model_id).alias("model_id"),
        "image_id",
        "scenario_id",
        pl.col("ordering").cast(pl.Int32),
        pl.col("seed").cast(pl.Int32),
    ).with_columns(
        pl.Series("response_text", answers_text, dtype=pl.String),
        pl.select(outcome.alias("outcome")).to_series(),
        letter_series,
        pl.Series("p_favorable", p_favorable if p_favorable is not None else [None] * n, dtype=pl.Float64),
        pl.Series("p_neither", p_neither if p_neither is not None else [None] * n, dtype=pl.Float64),
        pl.Series("latency_ms", latency_ms, dtype=pl.Float64),
        pl.lit(now).cast(pl.Datetime("us")).alias("created_at"),
        pl.lit(run_id).alias("run_id"),
    )


def _batches(plan: pl.DataFrame, batch_size: int) -> Iterator[pl.DataFrame]:
    for start in range(0, plan.height, batch_size):
        yield plan.slice(start, batch_size)


@contextmanager
def _progress(enabled: bool, console: Console | None) -> Iterator[Progress | None]:
    if not enabled:
        yield None
        return
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TaskProgressColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=False) as progress:
        yield progress


def run_study(
    study: Study,
    *,
    database: Path | None = None,
    shard: Shard = Shard(),
    progress: bool = True,
    console: Console | None = None,
    max_judgments: int | None = None,
) -> RunSummary:
    """Run (or resume) every judgment of ``study`` that the database does not hold yet.

    ``max_judgments`` stops after that many new judgments (useful for smoke tests).
    """
    started = time.perf_counter()
    db_path = shard.database_path(Path(database) if database else study.database_path)
    benchmark = load_benchmark(study.benchmark, study.variations, progress=progress)
    images = benchmark.image.filter(pl.col("evaluated"))
    images = images.filter(shard.owns(images["identity_id"])) if shard.count > 1 else images
    scenarios = {s.scenario_id: s for s in study_scenarios(study)}

    # Backends first: a bad model setting fails before the database is created or touched.
    context = StudyContext(
        images=image_records(benchmark), scenarios=scenarios, template=study.prompt.template
    )
    backends: list[tuple[ModelConfig, Backend]] = []
    try:
        for model in study.models:
            backends.append((model, backend_class(model.backend)(model, context)))
    except BaseException:
        _close(backends)
        raise

    con = store.open_study(db_path)
    try:
        for _, backend in backends:
            backend.context = dataclasses.replace(context, con=con)
        write_study_tables(con, study, benchmark)
        plans = []
        for model, backend in backends:
            deterministic = bool(getattr(backend, "deterministic", backend.scores))
            plans.append(
                plan_judgments(
                    con,
                    model_id=model.model_id,
                    image_ids=images["image_id"].to_list(),
                    scenario_ids=list(scenarios),
                    orderings=study.prompt.orderings
                    if backend.uses_orderings
                    else [study.prompt.orderings[0]],
                    seeds=[0] if deterministic else study.seeds,
                )
            )
        n_planned = sum(p.height for p in plans)
        if max_judgments is not None:
            n_planned = min(n_planned, max_judgments)
        n_stored_before = con.execute("SELECT count(*) FROM judgment").fetchone()[0]  # type: ignore[index]

        run_id = uuid.uuid4().hex
        store.write_tables(
            con,
            {
                "run": pl.DataFrame(
                    {
                        "run_id": [run_id],
                        "study_name": [study.name],
                        "shard": [str(shard)],
                        "config": [study.model_dump_json()],
                        "versions": [json.dumps(versions(), sort_keys=True)],
                        "started_at": pl.Series([dt.datetime.now()], dtype=pl.Datetime("us")),
                        "finished_at": pl.Series([None], dtype=pl.Datetime("us")),
                        "n_planned": pl.Series([n_planned], dtype=pl.Int64),
                        "n_written": pl.Series([None], dtype=pl.Int64),
                    }
                )
            },
        )

        n_written = 0
        with _progress(progress, console) as bar:
            task = bar.add_task("judging", total=n_planned, rate="") if bar else None
            for (model, backend), plan in zip(backends, plans, strict=True):
                for batch in _batches(plan, study.batch_size):
                    if max_judgments is not None:
                        if n_written >= max_judgments:
                            break
                        batch = batch.head(max_judgments - n_written)
                    answers = backend.judge(batch)
                    rows = judgment_rows(
                        batch,
                        answers.response_text,
                        answers.latency_ms,
                        answers.p_favorable,
                        answers.p_neither,
                        model_id=model.model_id,
                        run_id=run_id,
                        scenarios=scenarios,
                    )
                    store.write_tables(con, {"judgment": rows})
                    n_written += rows.height
                    if bar is not None and task is not None:
                        elapsed = max(time.perf_counter() - started, 1e-9)
                        bar.update(task, advance=rows.height, rate=f"{n_written / elapsed:,.0f} judgments/s")
        con.execute(
            "UPDATE run SET finished_at = ?, n_written = ? WHERE run_id = ?",
            [dt.datetime.now(), n_written, run_id],
        )
    finally:
        _close(backends)
        con.close()
    return RunSummary(run_id, db_path, n_planned, n_written, n_stored_before, time.perf_counter() - started)


def _close(backends: list[tuple[ModelConfig, Backend]]) -> None:
    for _, backend in backends:
        backend.close()


#: Tables merged from shard files, with their keys; dimension rows must agree across shards.
_MERGE_TABLES: tuple[tuple[str, list[str]], ...] = (
    ("identity", ["identity_id"]),
    ("image", ["image_id"]),
    ("scenario", ["scenario_id"]),
    ("prompt_variant", ["ordering"]),
    ("model", ["model_id"]),
    ("run", ["run_id"]),
    ("judgment", JUDGMENT_KEY),
)


def merge_databases(output: Path, inputs: list[Path]) -> dict[str, int]:
    """Merge shard databases into ``output`` (created if needed) in one transaction.

    Rows already in ``output`` are kept; a key present with different content in two
    inputs (or in an input and the output) is an error and nothing is written.
    Returns the number of rows added per table.
    """
    for path in inputs:
        if not Path(path).is_file():
            raise CueshiftError(f"{path}: no such database to merge")
        if Path(path).resolve() == Path(output).resolve():
            raise CueshiftError(f"{path}: cannot merge a database into itself")
    con = store.open_study(output)
    added: dict[str, int] = {}
    try:
        for i, path in enumerate(inputs):
            con.execute(f"ATTACH '{Path(path).as_posix()}' AS shard_{i} (READ_ONLY)")
        con.execute("BEGIN TRANSACTION")
        for table, key in _MERGE_TABLES:
            columns = [r[0] for r in con.execute(f"DESCRIBE {table}").fetchall()]
            compare = [c for c in columns if c not in key]
            union = " UNION ALL ".join(f"SELECT * FROM shard_{i}.main.{table}" for i in range(len(inputs)))
            key_list = ", ".join(key)
            distinct_rows = f"SELECT DISTINCT * FROM ({union} UNION ALL SELECT * FROM main.{table})"
            clash = con.execute(
                f"SELECT {key_list} FROM ({distinct_rows}) GROUP BY {key_list} HAVING count(*) > 1 LIMIT 1"
            ).fetchone()
            if clash is not None and compare:
                raise CueshiftError(
                    f"merge: table {table} has key {dict(zip(key, clash, strict=True))} "
                    "with different content in two databases"
                )
            on = " AND ".join(f"t.{k} = s.{k}" for k in key)
            before = con.execute(f"SELECT count(*) FROM main.{table}").fetchone()[0]  # type: ignore[index]
            con.execute(
                f"INSERT INTO main.{table} SELECT DISTINCT s.* FROM ({union}) AS s "
                f"WHERE NOT EXISTS (SELECT 1 FROM main.{table} AS t WHERE {on})"
            )
            after = con.execute(f"SELECT count(*) FROM main.{table}").fetchone()[0]  # type: ignore[index]
            added[table] = after - before
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    finally:
        con.close()
    return added

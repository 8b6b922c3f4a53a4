"""Release judgments, read and checked by :mod:`.judgments`, written into the study database: the
``model`` rows of the models found, then the judgments not stored yet in large batches, inside one
``run`` whose ``backend_report`` keeps the import's counts (a judgment already stored is skipped,
so importing twice adds nothing).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import duckdb
import polars as pl

from cueshift import store
from cueshift.designs.forced_choice import JUDGMENT_KEY
from cueshift.designs.imported_judges import IMPORT_BACKEND
from cueshift.execution.runner import model_frame
from cueshift.imports.release_study import imported_model
from cueshift.study.config import Study

BATCH_ROWS = 250_000


def model_rows(study: Study, models: list[str]) -> pl.DataFrame:
    """``model`` rows: the study's own entry where it lists the model, an import entry otherwise."""
    listed = {m.model_id: m for m in study.models}
    rows = model_frame([listed[m] for m in models if m in listed])
    extra = [m for m in models if m not in listed]
    imported = pl.DataFrame(
        {
            "model_id": extra,
            "backend": [IMPORT_BACKEND] * len(extra),
            "checkpoint": extra,
            "revision": pl.Series([None] * len(extra), dtype=pl.String),
            "settings": [json.dumps(imported_model(m)["settings"]) for m in extra],
        }
    )
    return pl.concat([rows, imported]) if rows.height else imported


def new_rows(con: duckdb.DuckDBPyConnection, judgments: pl.DataFrame) -> pl.DataFrame:
    """The judgments whose key is not stored yet (the anti-join runs inside DuckDB)."""
    key = ", ".join(JUDGMENT_KEY)
    con.register("cueshift_import", judgments.select(JUDGMENT_KEY).with_row_index("__i").to_arrow())
    try:
        wanted = store.query(
            con, f"SELECT __i FROM cueshift_import ANTI JOIN (SELECT {key} FROM judgment) USING ({key})"
        )
    finally:
        con.unregister("cueshift_import")
    return judgments.with_row_index("__i").join(wanted, on="__i", how="semi").drop("__i")


def write_release(
    database: Path,
    study: Study,
    dimensions: Mapping[str, tuple[pl.DataFrame, str]],
    run: store.RunRecord,
    judgments: pl.DataFrame,
    releases: pl.DataFrame,
    *,
    models: list[str],
    report: str,
) -> int:
    """Write the import into ``database``: the study's dimension rows (``table -> (rows, key)``)
    with the ``model`` rows of the judgments' ``models``, all or none; then, inside ``run``, the
    ``judgment`` rows not stored yet and their ``release_judgment`` rows, :data:`BATCH_ROWS` at a
    time; ``report`` (JSON) is the run's ``backend_report``. Returns the judgments written."""
    con = store.open_study(database)
    try:
        store.upsert_dimensions(con, {**dimensions, "model": (model_rows(study, models), "model_id")})
        new = new_rows(con, judgments)
        new_releases = releases.join(new.select(JUDGMENT_KEY), on=list(JUDGMENT_KEY), how="semi")
        store.start_run(con, run)
        for start in range(0, new.height, BATCH_ROWS):
            batch = new.slice(start, BATCH_ROWS)
            release_batch = new_releases.join(batch.select(JUDGMENT_KEY), on=list(JUDGMENT_KEY), how="semi")
            store.write_tables(con, {"judgment": batch, "release_judgment": release_batch})
        store.finish_run(con, run, new.height, backend_report=report)
    finally:
        con.close()
    return new.height

"""Exports other tools read: binomial cell counts for brms/lme4/HiBayES, the result
tables as Parquet/CSV, and model-level scores in the Every Eval Ever schema.

The study database is opened read-only (:func:`cueshift.store.readonly.open_locked`); nothing is
written to it. Every file is written whole or not at all (:func:`cueshift.store.export.write_frame`).
See ``docs/exports.md`` for the columns and the model formula.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Final, Literal

import duckdb
import polars as pl
from scipy.stats import binomtest

from cueshift.errors import CueshiftError
from cueshift.store.export import check_target, write_frame
from cueshift.store.readonly import open_locked

ExportFormat = Literal["counts", "results", "eee"]
#: Every export ``export_study`` writes (by default, of a database that holds judgments).
FORMATS: Final[tuple[ExportFormat, ...]] = ("counts", "results", "eee")
#: The exports made of the ``judgment`` rows (a design of trials or ratings only has none).
JUDGMENT_FORMATS: Final[tuple[ExportFormat, ...]] = ("counts", "eee")
#: Every Eval Ever schema version the scores follow (every-eval-ever 0.3.0, eval.schema.json).
EEE_SCHEMA_VERSION: Final = "0.3.0"

#: Favourable of valid answers per face × image (variation) × scenario × ordering × model; the
#: same counts as the ``phi`` view (invalid answers leave ``valid``), one level further down.
COUNTS_SQL: Final = """
SELECT j.model_id, im.face_id, j.image_id, im.role,
       coalesce(im.variation_category, 'base') AS variation_category,
       coalesce(im.feature_key, 'base') AS feature_key,
       coalesce(im.variation_value, 'base') AS variation_value,
       id.age, id.gender, id.ethnicity, id.body_type,
       j.scenario_id, s.category AS scenario_category, j.ordering,
       count(*) FILTER (WHERE j.outcome = 'favorable')::BIGINT AS favourable,
       count(*) FILTER (WHERE j.outcome <> 'invalid')::BIGINT AS valid,
       count(*)::BIGINT AS total
FROM judgment j JOIN image im USING (image_id) JOIN face id USING (face_id)
     LEFT JOIN scenario s USING (scenario_id)
GROUP BY ALL
ORDER BY ALL
"""


#: model_info.additional_details the schema requires; the study database does not record them.
_UNKNOWN_DEPLOYMENT: Final = {"deployment_type": "unknown", "model_availability": "unknown"}


def _tables(con: duckdb.DuckDBPyConnection) -> set[str]:
    return {row[0] for row in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}


def _frame(con: duckdb.DuckDBPyConnection, sql: str) -> pl.DataFrame:
    frame: pl.DataFrame = con.sql(sql).pl()
    return frame


def _manifest(con: duckdb.DuckDBPyConnection, db: Path) -> pl.DataFrame:
    """``result_manifest``, or one line refusing a study whose analysis has not run."""
    has_rows = (
        "result_manifest" in _tables(con) and _frame(con, "SELECT 1 FROM result_manifest LIMIT 1").height
    )
    if not has_rows:
        raise CueshiftError(f"{db}: no analysis has run (run `cueshift analyze` first)")
    return _frame(con, "SELECT * FROM result_manifest")


def _write(frame: pl.DataFrame, path: Path, written: list[Path]) -> None:
    write_frame(frame, check_target(path, force=True))
    written.append(path)


def eee_records(counts: pl.DataFrame, created: str) -> list[dict[str, object]]:
    """One Every Eval Ever record per model: the share of valid answers naming the favourable
    descriptor (φ pooled over all its judgments) with its Wilson 95 % interval, and the share
    of invalid answers."""
    records: list[dict[str, object]] = []
    per_model = counts.group_by("model_id").agg(pl.col("favourable", "valid", "total").sum()).sort("model_id")
    for model, fav, valid, total in per_model.iter_rows():
        share = fav / valid if valid else math.nan
        low, high = _wilson(fav, valid)
        results: list[dict[str, object]] = []
        if valid:
            results.append(_result("favourable_share", share, "continuous", low, high, valid))
        results.append(_result("invalid_share", (total - valid) / total, "continuous", None, None, total))
        records.append({
            "schema_version": EEE_SCHEMA_VERSION,
            "evaluation_id": f"cueshift/{model}/{created}",
            "retrieved_timestamp": created,
            "source_metadata": {
                "source_name": "cueshift study", "source_type": "evaluation_run",
                "source_organization_name": "cueshift", "evaluator_relationship": "third_party",
            },
            "eval_library": {"name": "cueshift", "version": _version()},
            "model_info": {"name": model, "id": model, "additional_details": _UNKNOWN_DEPLOYMENT},
            "evaluation_results": results,
        })  # fmt: skip
    return records


def _wilson(k: int, n: int) -> tuple[float | None, float | None]:
    """Wilson 95 % interval of k/n (scipy's; None without trials)."""
    if n == 0:
        return None, None
    ci = binomtest(k, n).proportion_ci(0.95, method="wilson")
    return float(ci.low), float(ci.high)


def _result(
    name: str, score: float, kind: str, low: float | None, high: float | None, n: int
) -> dict[str, object]:
    details: dict[str, object] = {"score": score, "details": {"n": str(n)}}
    if low is not None and high is not None:
        details["uncertainty"] = {
            "confidence_interval": {"lower": low, "upper": high, "confidence_level": 0.95, "method": "wilson"}
        }
    return {
        "evaluation_name": name,
        "source_data": {"dataset_name": "cueshift study", "source_type": "other"},
        "metric_config": {
            "lower_is_better": False, "score_type": kind, "min_score": 0.0, "max_score": 1.0,
            "metric_unit": "proportion",
        },
        "score_details": details,
    }  # fmt: skip


def _fillable(formats: Sequence[ExportFormat] | None, judged: bool, db: Path) -> Sequence[ExportFormat]:
    """``formats`` (None: every export the database can fill); one asked of the judgments of a
    database that holds none is refused, not written empty."""
    if formats is None:
        return FORMATS if judged else tuple(f for f in FORMATS if f not in JUDGMENT_FORMATS)
    empty = [f for f in formats if f in JUDGMENT_FORMATS and not judged]
    if empty:
        raise CueshiftError(
            f"{db}: export --format {empty[0]}: the database holds no judgments (its design stores "
            "trials or ratings); its exports are --format results"
        )
    return formats


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415

    try:
        return version("cueshift")
    except PackageNotFoundError:
        return "unknown"


def export_study(
    db: str | Path, out_dir: str | Path, formats: Sequence[ExportFormat] | None = None
) -> list[Path]:
    """Write the study's exports into ``out_dir``; return the files written.

    ``formats`` None: every export the database can fill (:data:`FORMATS`; ``results`` alone where
    it holds no judgments, e.g. a pairwise study's).

    ``counts``: ``counts.parquet``, favourable of valid per face × variation × scenario ×
    ordering × model (the long format of ``cbind(favourable, valid - favourable) ~ variation_value
    + (1 | face_id) + (1 | scenario_id)``, docs/exports.md). ``results``: every table of
    ``result_manifest`` as ``results/<table>.parquet`` and ``.csv``. ``eee``: one Every Eval Ever
    JSON per model in ``eee/``.

    Raises
    ------
    CueshiftError
        An unknown format, a missing database, a study whose analysis has not run, or ``counts`` or
        ``eee`` asked of a database without judgments (they would be empty).

    Examples
    --------
    >>> export_study("study.duckdb", "exports")  # doctest: +SKIP
    """
    unknown = [f for f in formats or () if f not in FORMATS]
    if unknown:
        raise CueshiftError(f"export: unknown format {unknown[0]!r} (choose from {', '.join(FORMATS)})")
    db, out = Path(db), Path(out_dir)
    con = open_locked(db)
    try:
        manifest = _manifest(con, db)
        counts = _frame(con, COUNTS_SQL)
        tables = {t: _frame(con, f'SELECT * FROM "{t}"') for t in manifest["table"].unique().sort()}
    finally:
        con.close()
    formats = _fillable(formats, counts.height > 0, db)
    written: list[Path] = []
    out.mkdir(parents=True, exist_ok=True)
    if "counts" in formats:
        _write(counts, out / "counts.parquet", written)
    if "results" in formats:
        (out / "results").mkdir(exist_ok=True)
        for name, frame in tables.items():
            _write(frame, out / "results" / f"{name}.parquet", written)
            flat = frame.select([c for c, t in frame.schema.items() if not t.is_nested()])
            _write(flat, out / "results" / f"{name}.csv", written)
    if "eee" in formats:
        (out / "eee").mkdir(exist_ok=True)
        created = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        for record in eee_records(counts, created):
            model = str(record["evaluation_id"]).split("/", 1)[1].rsplit("/", 1)[0]
            path = out / "eee" / f"{re.sub(r'[^A-Za-z0-9._-]', '_', model)}.json"
            path.write_text(json.dumps(record, indent=2) + "\n")
            written.append(path)
    return written

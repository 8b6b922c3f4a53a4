"""Declared analyses: each result table is registered once (what, grouping, statistic,
correction family) and :func:`run_analyses` computes and stores all of them."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import duckdb
import pandera.polars as pa
import polars as pl

from cueshift.errors import CueshiftError
from cueshift.schemas.results import RESULT_SCHEMA_VERSION, RESULT_SCHEMAS
from cueshift.stats._attributes import (
    category_demographic_table,
    demographic_variation_table,
    fashion_age_table,
    negativity_asymmetry,
)
from cueshift.stats._checked import validate_result
from cueshift.stats._crossmodel import category_ranking, cross_model
from cueshift.stats._demographic import demographic_tests, face_anova, significance_share
from cueshift.stats._metrics import cumulative_abs_sbs, model_summary, variation_strength
from cueshift.stats._mixed import mixed_model
from cueshift.stats._resample import CIMethod
from cueshift.stats._sbs import TestMethod, sbs_levels

DELTA_COLUMNS = (
    "model_id",
    "face_id",
    "scenario_id",
    "scenario_category",
    "variation_category",
    "feature_key",
    "variation_value",
    "age",
    "gender",
    "ethnicity",
    "body_type",
    "phi_variation",
    "phi_base",
    "delta",
)
BASE_COLUMNS = (
    "model_id",
    "face_id",
    "scenario_id",
    "scenario_category",
    "age",
    "gender",
    "ethnicity",
    "body_type",
    "phi",
)


@dataclass
class AnalysisContext:
    """Inputs and settings handed to every analysis; ``results`` holds those computed so far."""

    delta: pl.DataFrame
    base_phi: pl.DataFrame
    n_resamples: int = 10_000
    seed: int = 0
    test: TestMethod = "rank"
    ci_method: CIMethod = "bca"
    confidence_level: float = 0.95
    results: dict[str, pl.DataFrame] = field(default_factory=dict)

    @property
    def boot(self) -> dict[str, object]:
        return {
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "confidence_level": self.confidence_level,
            "ci_method": self.ci_method,
        }


@dataclass(frozen=True)
class Analysis:
    """One declared result table ``result_<name>``."""

    name: str
    description: str
    source: str
    grouping: str
    statistic: str
    family: str
    schema: type[pa.DataFrameModel]
    compute: Callable[[AnalysisContext], pl.DataFrame]

    @property
    def table(self) -> str:
        return f"result_{self.name}"


#: Registry in run order (later analyses may read ``ctx.results`` of earlier ones).
ANALYSES: dict[str, Analysis] = {}


def analysis(
    name: str, *, description: str, source: str, grouping: str, statistic: str, family: str
) -> Callable[[Callable[[AnalysisContext], pl.DataFrame]], Callable[[AnalysisContext], pl.DataFrame]]:
    """Register ``fn(ctx) -> frame`` as analysis ``name``; its schema is ``RESULT_SCHEMAS[name]``."""

    def register(fn: Callable[[AnalysisContext], pl.DataFrame]) -> Callable[[AnalysisContext], pl.DataFrame]:
        if name in ANALYSES:
            raise ValueError(f"analysis {name!r} registered twice")
        ANALYSES[name] = Analysis(
            name, description, source, grouping, statistic, family, RESULT_SCHEMAS[name], fn
        )
        return fn

    return register


@analysis(
    "sbs",
    description="SBS and |SBS| at every level (Eq. 4; Figs. 3-4), face-level bootstrap CIs",
    source="delta",
    grouping="level x model (and pooled) x group",
    statistic="face-level mean Delta; WSRT on per-face means",
    family="level x model x dimension",
)
def _sbs(ctx: AnalysisContext) -> pl.DataFrame:
    return sbs_levels(ctx.delta, test=ctx.test, **ctx.boot)  # type: ignore[arg-type]


@analysis(
    "table2_vs",
    description="Variation Strength per model x demographic dimension (Eq. 3, Table 2)",
    source="base_phi",
    grouping="model x dimension",
    statistic="mean over scenarios of population std of group mean phi",
    family="none",
)
def _vs(ctx: AnalysisContext) -> pl.DataFrame:
    return variation_strength(
        ctx.base_phi, n_resamples=ctx.n_resamples, seed=ctx.seed, confidence_level=ctx.confidence_level
    )


@analysis(
    "demographic_tests",
    description="Kruskal-Wallis / Mann-Whitney per model x scenario on base phi",
    source="base_phi",
    grouping="model x dimension x scenario",
    statistic="KW H (age, body, ethnicity), MWU U (gender)",
    family="model x dimension (BH over scenarios)",
)
def _demo_tests(ctx: AnalysisContext) -> pl.DataFrame:
    return demographic_tests(ctx.base_phi, test=ctx.test, n_resamples=ctx.n_resamples, seed=ctx.seed)


@analysis(
    "table9",
    description="Share of scenarios with a significant demographic difference (Table 9)",
    source="result_demographic_tests",
    grouping="model x dimension",
    statistic="share of p_adj < 0.05",
    family="model x dimension",
)
def _table9(ctx: AnalysisContext) -> pl.DataFrame:
    tests = ctx.results.get("demographic_tests")
    if tests is None:
        tests = _demo_tests(ctx)
    return significance_share(tests)


@analysis(
    "face_anova",
    description="One-way face-level ANOVAs by demographic dimension (Table 10)",
    source="delta, base_phi",
    grouping="outcome x dimension",
    statistic="F, partial eta^2",
    family="none",
)
def _anova(ctx: AnalysisContext) -> pl.DataFrame:
    return face_anova(ctx.delta, ctx.base_phi)


@analysis(
    "mixed_model",
    description="Mixed model, random intercept per face: partial eta^2, F, R2 (Table 10)",
    source="delta",
    grouping="term",
    statistic="Wald F, partial eta^2, Nakagawa R2",
    family="none",
)
def _mixed(ctx: AnalysisContext) -> pl.DataFrame:
    return mixed_model(ctx.delta)


@analysis(
    "table3",
    description="SBS per attribute category x demographic dimension (Table 3)",
    source="delta",
    grouping="category x dimension x group",
    statistic="face-level mean Delta; WSRT",
    family="dimension x row kind",
)
def _table3(ctx: AnalysisContext) -> pl.DataFrame:
    return category_demographic_table(ctx.delta, test=ctx.test, **ctx.boot)  # type: ignore[arg-type]


@analysis(
    "table4",
    description="SBS per fashion style x age; elderly - young MWU (Table 4)",
    source="delta",
    grouping="style x age group",
    statistic="face-level mean Delta; WSRT; MWU contrast",
    family="cells; contrasts over styles",
)
def _table4(ctx: AnalysisContext) -> pl.DataFrame:
    return fashion_age_table(ctx.delta, test=ctx.test, **ctx.boot)  # type: ignore[arg-type]


@analysis(
    "negativity_asymmetry",
    description="Unfavorable vs favorable cue magnitude, one-sided WSRT (5.2)",
    source="delta",
    grouping="cue pair",
    statistic="median |per-face SBS| ratio; one-sided WSRT",
    family="pairs",
)
def _asym(ctx: AnalysisContext) -> pl.DataFrame:
    return negativity_asymmetry(ctx.delta, test=ctx.test, n_resamples=ctx.n_resamples, seed=ctx.seed)


@analysis(
    "table5",
    description="Per-model SBS, Cohen's d, zero share, |Delta| >= 0.25 share (Table 5)",
    source="delta",
    grouping="model",
    statistic="face-level mean, d_z, shares of Delta rows",
    family="none",
)
def _table5(ctx: AnalysisContext) -> pl.DataFrame:
    return model_summary(ctx.delta, **ctx.boot)  # type: ignore[arg-type]


@analysis(
    "cumulative_abs_sbs",
    description="Cumulative |SBS| by attribute; attributes to reach 80% (Fig. 2)",
    source="delta",
    grouping="model (and pooled) x variation value",
    statistic="|face-level SBS|",
    family="none",
)
def _cumulative(ctx: AnalysisContext) -> pl.DataFrame:
    return cumulative_abs_sbs(ctx.delta)


@analysis(
    "cross_model",
    description="Per-scenario mean Delta between model pairs: r, slope, reversals (Fig. 5)",
    source="delta",
    grouping="model pair",
    statistic="Pearson r, OLS slope",
    family="none",
)
def _cross(ctx: AnalysisContext) -> pl.DataFrame:
    return cross_model(ctx.delta, confidence_level=ctx.confidence_level)


@analysis(
    "category_ranking",
    description="Scenario-category |SBS| ranking per model (5.3)",
    source="delta",
    grouping="model x scenario category",
    statistic="mean |cell SBS|",
    family="none",
)
def _ranking(ctx: AnalysisContext) -> pl.DataFrame:
    return category_ranking(ctx.delta)


@analysis(
    "table11",
    description="Mean Delta per variation x demographic group, WSRT (Table 11)",
    source="delta",
    grouping="variation value x dimension x group",
    statistic="face-level mean Delta; WSRT",
    family="all cells",
)
def _table11(ctx: AnalysisContext) -> pl.DataFrame:
    return demographic_variation_table(ctx.delta, test=ctx.test, **ctx.boot)  # type: ignore[arg-type]


def load_inputs(
    con: duckdb.DuckDBPyConnection, models: Sequence[str] | None = None
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The ``delta`` rows with a Δ and the ``base_phi`` rows with a φ (optionally for some models)."""
    where = ""
    params: list[object] = []
    if models:
        where = f" AND model_id IN ({', '.join('?' for _ in models)})"
        params = list(models)
    # ORDER BY: DuckDB scans in parallel, and float sums depend on row order; sorted input makes
    # every result bit-for-bit reproducible for a given seed.
    delta = con.sql(
        f"SELECT {', '.join(DELTA_COLUMNS)} FROM delta WHERE delta IS NOT NULL{where} "
        "ORDER BY model_id, face_id, variation_value, scenario_id",
        params=params or None,
    ).to_arrow_table()
    base = con.sql(
        f"SELECT {', '.join(BASE_COLUMNS)} FROM base_phi WHERE phi IS NOT NULL{where} "
        "ORDER BY model_id, face_id, scenario_id",
        params=params or None,
    ).to_arrow_table()
    return pl.from_arrow(delta), pl.from_arrow(base)  # type: ignore[return-value]


def run_analyses(
    con: duckdb.DuckDBPyConnection,
    *,
    n_resamples: int = 10_000,
    seed: int = 0,
    models: Sequence[str] | None = None,
    progress: bool = True,
    test: TestMethod = "rank",
    ci_method: CIMethod = "bca",
    confidence_level: float = 0.95,
    only: Sequence[str] | None = None,
    write: bool = True,
) -> dict[str, pl.DataFrame]:
    """Compute every registered analysis and store each as ``result_<name>`` (one transaction).

    Parameters
    ----------
    con : duckdb.DuckDBPyConnection
        An open study database (``cueshift.store.open_study``).
    n_resamples, seed, confidence_level, ci_method
        Face-level bootstrap / permutation settings (every analysis uses the same seed).
    models : sequence of str, optional
        Restrict to these model ids (default: all).
    test : {'rank', 'permutation'}
        Rank tests (WSRT, MWU, KW; the paper's) or their permutation counterparts.
    only : sequence of str, optional
        Names of analyses to run (default: all of :data:`ANALYSES`).
    write : bool
        Store the tables (replacing earlier ones) and ``result_manifest``.

    Returns
    -------
    dict of str to polars.DataFrame
        Result frames by analysis name (validated by ``schemas/results.py``).
    """
    delta, base = load_inputs(con, models)
    if delta.height == 0 and base.height == 0:
        raise CueshiftError("no judgments with a valid answer in the study database: nothing to analyse")
    ctx = AnalysisContext(delta, base, n_resamples, seed, test, ci_method, confidence_level)
    chosen = [ANALYSES[n] for n in (only or ANALYSES)]
    manifest_rows = []
    bar = _progress(progress)
    with bar:
        task = bar.add_task("analyses", total=len(chosen))
        for item in chosen:
            bar.update(task, description=item.name)
            started = time.perf_counter()
            frame = validate_result(item.name, item.compute(ctx))
            ctx.results[item.name] = frame
            manifest_rows.append(
                {
                    "name": item.name,
                    "table": item.table,
                    "description": item.description,
                    "source": item.source,
                    "grouping": item.grouping,
                    "statistic": item.statistic,
                    "family": item.family,
                    "n_rows": frame.height,
                    "n_resamples": n_resamples,
                    "seed": seed,
                    "test": test,
                    "ci_method": ci_method,
                    "models": ",".join(models) if models else "all",
                    "schema_version": RESULT_SCHEMA_VERSION,
                    "seconds": time.perf_counter() - started,
                    "created_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                }
            )
            bar.advance(task)
    manifest = validate_result(
        "manifest",
        pl.DataFrame(manifest_rows).with_columns(
            pl.col("n_rows", "n_resamples", "seed", "schema_version").cast(pl.Int64)
        ),
    )
    if write:
        write_results(con, {**ctx.results, "manifest": manifest})
    return dict(ctx.results)


def write_results(con: duckdb.DuckDBPyConnection, frames: dict[str, pl.DataFrame]) -> None:
    """Replace ``result_<name>`` by each frame, all in one transaction (all or nothing)."""
    con.execute("BEGIN TRANSACTION")
    try:
        for name, frame in frames.items():
            arrow = frame.to_arrow()  # noqa: F841 (read by name in SQL)
            con.execute(f'CREATE OR REPLACE TABLE "result_{name}" AS SELECT * FROM arrow')
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


class _NoProgress:
    def __enter__(self) -> _NoProgress:
        return self

    def __exit__(self, *args: object) -> None:
        return None

    def add_task(self, *args: object, **kwargs: object) -> int:
        return 0

    def update(self, *args: object, **kwargs: object) -> None:
        return None

    def advance(self, *args: object, **kwargs: object) -> None:
        return None


def _progress(enabled: bool) -> Any:
    if not enabled:
        return _NoProgress()
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("[bold]analyse[/] {task.description:<22}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        transient=True,
    )

"""Running a suite of declared analyses: compute, validate, record in ``result_manifest``, store."""

from __future__ import annotations

import datetime as dt
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import duckdb
import polars as pl

from cueshift import store
from cueshift._method_words import StoredMethods, fill_methods
from cueshift.errors import CueshiftError
from cueshift.schemas.results import RESULT_SCHEMA_VERSION
from cueshift.stats._checked import validate_result
from cueshift.stats._declarations import Declarations
from cueshift.stats._deprecated_registry import legacy_suite
from cueshift.stats._plan_record import current_plan
from cueshift.stats._registry import Analysis, AnalysisContext, RunSettings
from cueshift.stats._schedule import Outcome, run_analyses_in_order
from cueshift.stats._subset_manifest import with_earlier_rows

#: Where a skipped analysis is told: ``note(name, reason)``.
Note = Callable[[str, str], None]


def run_suite(
    con: duckdb.DuckDBPyConnection,
    analyses: Declarations | str,
    inputs: Any,
    settings: RunSettings,
    *,
    only: Sequence[str] | None = None,
    write: bool = True,
    progress: bool = False,
    note: Note | None = None,
    workers: int = 1,
) -> dict[str, pl.DataFrame]:
    """Compute the analyses of a suite and store each as ``result_<name>`` with its
    ``result_manifest`` row, all in one transaction.

    Parameters
    ----------
    con
        An open study database.
    analyses
        The suite's analyses (a design's :meth:`~cueshift.designs.protocol.Design.analyses`), run
        in declaration order. A suite's name (deprecated) runs the analyses declared for it with
        the deprecated :func:`~cueshift.stats.analysis`.
    inputs
        The suite's inputs, handed to every analysis as ``ctx.inputs``.
    settings
        Seed, resamples, test and interval of the run (recorded in the manifest).
    only
        Names of the analyses to run (default: every analysis of the suite).
    write
        Store the tables (replacing earlier ones) and ``result_manifest`` (the rows of this run);
        a run of the whole suite (``only`` None) also drops the suite's tables it did not write,
        so no table of an earlier run outlives its manifest row, and a run of some analyses keeps
        the stored rows of the analyses it was not asked to run (:mod:`cueshift.stats._subset_manifest`).
    progress
        Show a progress bar.
    note
        Told ``(name, reason)`` of every analysis that does not apply to the study (its
        ``compute`` gave ``None`` or raised :class:`~cueshift.stats.NotApplicable`); default:
        one line on stderr, in declaration order once every analysis is done. The run goes on
        without its table.
    workers
        Analyses computed at a time (:mod:`cueshift.stats._schedule`): each still starts in
        declaration order once those it reads are done, and every table is the one a sequential
        run gives; ``result_manifest.seconds`` is each analysis's own wall time.

    Returns
    -------
    dict of str to polars.DataFrame
        Result frames by analysis name, each validated by its schema in ``schemas/results.py``;
        analyses that do not apply to the study are absent.

    Raises
    ------
    CueshiftError
        An analysis named in ``only`` that the suite does not declare.
    ValueError
        An analysis that runs after one not declared before it.
    """
    if isinstance(analyses, str):
        warnings.warn(
            "run_suite(con, <suite name>, ...) is deprecated: pass the design's Declarations "
            "(docs/decisions.md D27)",
            DeprecationWarning,
            stacklevel=2,
        )
        analyses = legacy_suite(analyses)
    analyses.check_order()
    declared = list(analyses)
    if only is not None:
        unknown = [name for name in only if name not in analyses]
        if unknown:
            raise CueshiftError(
                f"analysis {unknown[0]!r} is not declared for {analyses.suite!r}; "
                f"known: {', '.join(analyses.names)}"
            )
        declared = [analyses[name] for name in only]
    declared = [item for item in declared if item.when is None or item.when(settings)]
    ctx: AnalysisContext[Any] = AnalysisContext(inputs, settings)
    outcomes: dict[str, Outcome] = {}
    with _progress(progress) as bar:
        task = bar.add_task("analyses", total=len(declared)) if bar else None

        def started(item: Analysis[Any]) -> None:
            if bar is not None and task is not None:
                bar.update(task, description=item.name)

        def done(item: Analysis[Any], outcome: Outcome) -> None:
            outcomes[item.name] = outcome
            if outcome.frame is None:
                ctx.skipped[item.name] = outcome.reason
            else:
                ctx.results[item.name] = outcome.frame
            if bar is not None and task is not None:
                bar.advance(task)

        run_analyses_in_order(declared, ctx, workers, started, done)
    computed: dict[str, pl.DataFrame] = {}  # in declaration order, whatever order they ended in
    manifest_rows = []
    for item in declared:
        outcome = outcomes[item.name]
        if outcome.frame is None:
            (note or _print_note)(item.name, outcome.reason)
        else:
            computed[item.name] = outcome.frame
            manifest_rows.append(_manifest_row(item, outcome.frame, settings, outcome.seconds))
    if write:
        manifest = manifest_frame(manifest_rows)
        if only is not None:  # the tables it leaves alone keep the rows of the runs that made them
            manifest = with_earlier_rows(con, manifest, only, analyses.names)
        manifest = validate_result("manifest", manifest)
        # a full run leaves no table of an earlier run that this one did not write (an analysis
        # that no longer applies, an option such as --audit left out): the manifest lists them all
        stale = [a.table for a in analyses if a.name not in computed] if only is None else []
        store.replace_results(con, {**computed, "manifest": manifest}, drop=stale)
    return computed


def _manifest_row(
    item: Analysis[Any], frame: pl.DataFrame, settings: RunSettings, seconds: float
) -> dict[str, object]:
    # a text naming a test or interval --test / --ci switch says the one that ran
    methods = StoredMethods(test=(settings.test,), ci_method=(settings.ci_method,))
    return {
        "name": item.name,
        "table": item.table,
        "description": fill_methods(item.description, methods),
        "source": item.source,
        "grouping": item.grouping,
        "statistic": fill_methods(item.statistic, methods),
        "family": item.family,
        "n_rows": frame.height,
        "n_resamples": settings.n_resamples,
        "seed": settings.seed,
        "test": settings.test,
        "ci_method": settings.ci_method,
        "confidence_level": settings.confidence_level,
        "models": ",".join(settings.models) if settings.models else "all",
        "phi": settings.phi,
        "min_identity": settings.min_identity,
        "compat": settings.compat,
        "generalise": settings.generalise,
        "audit": settings.audit,
        "prereg_sha256": current_plan().sha256,
        "exploratory": current_plan().exploratory,
        "schema_version": RESULT_SCHEMA_VERSION,
        "seconds": seconds,
        "created_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }


def _print_note(name: str, reason: str) -> None:
    from rich.console import Console

    line = f"note: {name} skipped: {reason}"
    Console(stderr=True).print(line, markup=False, highlight=False, soft_wrap=True)  # one line, piped too


def manifest_frame(rows: list[dict[str, object]]) -> pl.DataFrame:
    """``result_manifest`` rows with their column types (also when there are none)."""
    schema = {
        "name": pl.String,
        "table": pl.String,
        "description": pl.String,
        "source": pl.String,
        "grouping": pl.String,
        "statistic": pl.String,
        "family": pl.String,
        "n_rows": pl.Int64,
        "n_resamples": pl.Int64,
        "seed": pl.Int64,
        "test": pl.String,
        "ci_method": pl.String,
        "confidence_level": pl.Float64,
        "models": pl.String,
        "phi": pl.String,
        "min_identity": pl.Float64,
        "compat": pl.String,
        "generalise": pl.String,
        "audit": pl.String,
        "prereg_sha256": pl.String,
        "exploratory": pl.Boolean,
        "schema_version": pl.Int64,
        "seconds": pl.Float64,
        "created_at": pl.String,
    }
    return pl.DataFrame(rows, schema=schema)


class _Bar:
    """A rich progress bar, or ``None`` in its place when progress is off."""

    def __init__(self, enabled: bool) -> None:
        self.progress: Any = None
        if enabled:
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

            self.progress = Progress(
                TextColumn("[bold]analyse[/] {task.description:<22}"),
                BarColumn(),
                TextColumn("{task.completed}/{task.total}"),
                TimeElapsedColumn(),
                transient=True,
            )

    def __enter__(self) -> Any:
        return self.progress.__enter__() if self.progress is not None else None

    def __exit__(self, *args: object) -> None:
        if self.progress is not None:
            self.progress.__exit__(*args)


def _progress(enabled: bool) -> _Bar:
    return _Bar(enabled)

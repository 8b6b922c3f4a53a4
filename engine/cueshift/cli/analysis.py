"""Reading a study: ``analyze`` (the result tables), ``sql`` (read-only queries) and ``show-study``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from cueshift._console import FitTable
from cueshift.cli._common import DbOption, StudyOption, console, err_console
from cueshift.cli._models_option import ModelsOption, OldModelOption, chosen_models

if TYPE_CHECKING:
    import polars as pl

#: Rows ``sql`` prints in a table when ``--rows`` is left out.
TABLE_ROWS = 50


def analyze(
    study: StudyOption = "default",
    db: DbOption = None,
    top: Annotated[
        int | None, typer.Option(help="Variations to list per model in the overview (default 10).")
    ] = None,
    resamples: Annotated[
        int | None,
        typer.Option(
            help="Resamples of the design's random step: face-level bootstrap and permutations "
            "(stylisticbias, default 10,000), random split-halves (probe, default \\[probe] n_splits)."
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(help="Seed of the design's random step (default 0; probe: \\[probe] split_seed)."),
    ] = None,
    test: Annotated[
        str | None,
        typer.Option(
            help="Tests: 'rank' (the paper's WSRT/MWU/KW) or 'permutation' for stylisticbias; "
            "'rank' (paired), 'exact' (pairwise), 'parametric' (probe)."
        ),
    ] = None,
    ci: Annotated[
        str | None,
        typer.Option(help="Intervals: 'bca' or 'percentile' (stylisticbias); 'analytic' (other designs)."),
    ] = None,
    models: ModelsOption = None,
    model: OldModelOption = None,
    phi: Annotated[
        str | None,
        typer.Option(
            help="Which phi every analysis reads (stylisticbias): 'greedy' (the stored answers, default), "
            "'expected' or 'T=0.2' (any temperature; answers drawn from a scoring backend's stored scores)."
        ),
    ] = None,
    min_identity: Annotated[
        float | None,
        typer.Option(
            help="Sensitivity analysis (stylisticbias, \\[quality] encoder): leave out the variations whose "
            "identity preservation (cosine with the base's CLIP embedding) is below this."
        ),
    ] = None,
    overview_only: Annotated[
        bool, typer.Option(help="Print the first-cut overview only; no statistics.")
    ] = False,
    progress: Annotated[bool, typer.Option(help="Show progress bars.")] = True,
    compat: Annotated[
        str | None,
        typer.Option(
            help="Replication mode (stylisticbias): 'release' also writes the seed release's own tables "
            "(result_release_*) and every cell where they differ (result_compat_differences); 'default'."
        ),
    ] = None,
    generalise: Annotated[
        str | None,
        typer.Option(
            help="The question the intervals answer (stylisticbias): 'faces' (default: the study's scenarios "
            "fixed, faces resampled) or 'faces+scenarios' (scenarios in general: faces and scenarios "
            "resampled together, the crossed bootstrap). Recorded in result_manifest."
        ),
    ] = None,
    audit: Annotated[
        str | None,
        typer.Option(
            help="Carry the stored edit audit (`cueshift audit`) into the results (stylisticbias): 'strict' "
            "drops the variations whose edit failed it from every analysis, 'report' keeps them; both write "
            "result_audit_sensitivity (SBS with all edits, audited edits, adjusted for unintended changes). "
            "Recorded in result_manifest."
        ),
    ] = None,
    prereg: Annotated[
        Path | None,
        typer.Option(
            help="Run exactly the plan frozen by `cueshift prereg` (its options; the study and image set "
            "checked against its hashes); a deviation is refused in one line. Its SHA-256 goes into "
            "result_manifest and the report's first page."
        ),
    ] = None,
    exploratory: Annotated[
        bool,
        typer.Option(
            help="With --prereg: run despite a deviation, labelled exploratory (result_manifest, report)."
        ),
    ] = False,
) -> None:
    """Run every analysis of the study's design into result_* tables, print its summary.

    An option the design cannot honour is refused (one line naming it), never ignored; every
    option, and the models of --models, is checked before anything is printed or written.
    Ctrl-C (exit 130) or SIGTERM (exit 143) stops it at once, a running database statement
    included; nothing is half-written (the result tables are replaced in one transaction).
    """
    from cueshift.designs import AnalysisRequest, load_study

    spec = load_study(study)  # a bad study file is one line before the store and statistics load (D90)
    from cueshift.execution.analysis_run import analyze_study
    from cueshift.execution.interrupts import stop_on_sigterm

    stop_on_sigterm()
    request = AnalysisRequest(
        seed=seed, resamples=resamples, test=test, ci=ci, models=chosen_models(models, model), top=top,
        overview_only=overview_only, phi=phi, min_identity=min_identity, compat=compat,
        generalise=generalise, audit=audit,
    )  # fmt: skip
    path = Path(db or spec.database_path)
    analyze_study(
        path, spec, request, console=console, progress=progress and sys.stderr.isatty(), note=_print_note,
        prereg=prereg, exploratory=exploratory,
    )  # fmt: skip


def _print_note(line: str) -> None:
    err_console.print(line, markup=False, highlight=False, soft_wrap=True)


def sql(
    query: Annotated[str, typer.Argument(help='One read-only statement, e.g. "FROM delta LIMIT 5".')],
    study: StudyOption = "default",
    db: DbOption = None,
    rows: Annotated[
        int | None, typer.Option(help="Rows to print at most (default: 50 in a table, every row with --csv).")
    ] = None,
    csv: Annotated[bool, typer.Option(help="Print CSV instead of a table.")] = False,
    out: Annotated[
        Path | None, typer.Option(help="Write the whole result to FILE.csv or FILE.parquet (only there).")
    ] = None,
    force: Annotated[bool, typer.Option(help="Let --out replace an existing file.")] = False,
) -> None:
    """Run one read-only SQL statement against the study database.

    Allowed: SELECT, WITH ... SELECT, VALUES, FROM-first, TABLE, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN of one.

    Opened read-only with files, network, other databases and extensions out of reach; settings locked.

    Nested values (lists, structs, maps) come out as JSON text; --out writes a CSV or Parquet file.
    """
    from cueshift.designs import load_study

    _check_sql_options(rows=rows, csv=csv, out=out, force=force)
    path = db or load_study(study).database_path  # a bad study file: one line before the store loads (D93)
    from cueshift.store import export, readonly

    target = export.check_target(out, force=force, protected=[Path(path)]) if out is not None else None
    frame = readonly.run_query(path, query, note=_note)
    if target is not None:
        export.write_frame(frame, target)
        console.print(f"{frame.height:,} rows -> {target.path}", markup=False, soft_wrap=True)
        return
    if csv:
        sys.stdout.write((frame if rows is None else frame.head(rows)).write_csv())
        return
    shown = frame.head(TABLE_ROWS if rows is None else rows)
    console.print(_result_table(shown))  # numbers whole at any width (cueshift._console)


def _check_sql_options(*, rows: int | None, csv: bool, out: Path | None, force: bool) -> None:
    """Refuse ``sql``'s options that cannot act together (one line naming them), before the query runs."""
    from cueshift.errors import ConfigError

    if rows is not None and rows < 0:
        raise ConfigError(f"--rows {rows}: use 0 or more")
    if out is None:
        if force:
            raise ConfigError("--force: only with --out (it lets --out replace an existing file)")
        return
    for option, given in (("--rows", rows is not None), ("--csv", csv)):
        if given:
            raise ConfigError(f"{option}: --out writes the whole result to its file; leave one of them out")


def _result_table(frame: pl.DataFrame) -> FitTable:
    """A query's rows as a console table: numbers right-aligned and never cut, text as it is, null as null."""
    from rich.text import Text

    table = FitTable()
    for name, dtype in frame.schema.items():
        table.add_column(Text(name), justify="right" if dtype.is_numeric() else "left")
    for row in frame.iter_rows():
        table.add_row(*(Text(_cell(value)) for value in row))
    return table


def _cell(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def _note(line: str) -> None:
    err_console.print(f"note: {line}", markup=False, highlight=False, soft_wrap=True)


def export(
    out: Annotated[Path, typer.Option(help="Folder to write the exports into.")],
    study: StudyOption = "default",
    db: DbOption = None,
    format: Annotated[  # noqa: A002 - the option's name
        list[str] | None,
        typer.Option(help="counts, results or eee (repeat; default: all the database can fill)."),
    ] = None,
) -> None:
    """Write counts for brms/lme4/HiBayES, the result tables and Every Eval Ever scores (docs/exports.md).

    The study database is opened read-only; a study whose analysis has not run is refused.
    """
    from cueshift.designs import load_study

    path = db or load_study(study).database_path  # a bad study file: one line before the store loads (D93)
    from cueshift.store.study_export import export_study

    written = export_study(path, out, formats=format or None)  # type: ignore[arg-type]
    console.print(f"{len(written)} files -> {out}", markup=False, soft_wrap=True)


def show_study(study: StudyOption = "default") -> None:
    """Print the fully resolved study configuration (defaults filled in) as JSON."""
    from cueshift.designs import load_study

    console.print_json(load_study(study).model_dump_json())

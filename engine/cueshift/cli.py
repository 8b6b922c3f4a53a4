"""The `cueshift` command line (the justfile recipes are thin wrappers over it)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import duckdb
import typer
from rich.console import Console
from rich.markup import escape

from cueshift.errors import CueshiftError

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="cueshift: how single visual cues shift the social judgments of multimodal models.",
    pretty_exceptions_enable=False,
)
# Tables are wide: when piped or in CI, print at 120 columns rather than rich's default 80.
console = Console() if sys.stdout.isatty() else Console(width=120)
err_console = Console(stderr=True) if sys.stderr.isatty() else Console(stderr=True, width=120)

StudyOption = Annotated[
    str,
    typer.Option("--study", "-s", help="Study file (TOML), or 'default' for the embedded default study."),
]
DbOption = Annotated[
    Path | None,
    typer.Option("--db", help="Study database (default: the study's `database`, runs/<name>.duckdb)."),
]


def _fail(message: str) -> None:
    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(2)


def _guard(func):  # type: ignore[no-untyped-def]
    """Turn user errors into one-line messages with exit code 2."""
    import functools

    @functools.wraps(func)
    def wrapper(*args, **kwargs):  # type: ignore[no-untyped-def]
        try:
            return func(*args, **kwargs)
        except CueshiftError as exc:
            _fail(str(exc))
        except duckdb.Error as exc:
            _fail(f"database: {str(exc).splitlines()[0]}")
        except KeyboardInterrupt:
            err_console.print("interrupted: every committed batch is kept; run the same command to resume")
            raise typer.Exit(130) from None

    return wrapper


@app.command()
@_guard
def infer(
    study: StudyOption = "default",
    db: DbOption = None,
    shard: Annotated[str, typer.Option(help="Run shard K of N (K/N) into its own database file.")] = "1/1",
    limit: Annotated[int | None, typer.Option(help="Stop after this many new judgments.")] = None,
    progress: Annotated[bool, typer.Option(help="Show progress bars.")] = True,
) -> None:
    """Judge every image x scenario x ordering x seed not stored yet (resumes after any interruption)."""
    from cueshift.designs.runner import Shard, run_study
    from cueshift.study.config import load_study

    spec = load_study(study)
    show_progress = progress and sys.stderr.isatty()
    if spec.design != "stylisticbias":
        if shard != "1/1":
            raise CueshiftError(f"--shard: design {spec.design!r} runs unsharded")
        from cueshift.designs import run_design

        summary = run_design(
            spec, database=db, progress=show_progress, console=err_console, max_judgments=limit
        )
    else:
        summary = run_study(
            spec,
            database=db,
            shard=Shard.parse(shard),
            progress=show_progress,
            console=err_console,
            max_judgments=limit,
        )
    console.print(
        f"study [bold]{escape(spec.name)}[/]: {summary.n_written:,} new judgments "
        f"({summary.n_stored_before:,} already stored) in {summary.seconds:.1f} s "
        f"-> {escape(str(summary.database))}",
        soft_wrap=True,
    )


@app.command()
@_guard
def analyze(
    study: StudyOption = "default",
    db: DbOption = None,
    top: Annotated[int, typer.Option(help="Variations to list per model in the overview.")] = 10,
    resamples: Annotated[int, typer.Option(help="Face-level bootstrap resamples per estimate.")] = 10_000,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap and permutation tests.")] = 0,
    test: Annotated[str, typer.Option(help="'rank' (the paper's WSRT/MWU/KW) or 'permutation'.")] = "rank",
    ci: Annotated[str, typer.Option(help="Bootstrap interval: 'bca' or 'percentile'.")] = "bca",
    model: Annotated[list[str] | None, typer.Option(help="Restrict to these model ids (repeatable).")] = None,
    overview_only: Annotated[
        bool, typer.Option(help="Print the first-cut overview only; no statistics.")
    ] = False,
    progress: Annotated[bool, typer.Option(help="Show progress bars.")] = True,
) -> None:
    """Build the views, run every declared analysis into result_* tables, print the headlines."""
    from cueshift import store
    from cueshift.study.config import load_study
    from cueshift.views import overview as first_cut

    if test not in ("rank", "permutation"):
        raise CueshiftError(f"--test {test!r}: expected 'rank' or 'permutation'")
    if ci not in ("bca", "percentile"):
        raise CueshiftError(f"--ci {ci!r}: expected 'bca' or 'percentile'")
    if resamples < 100:
        raise CueshiftError(f"--resamples {resamples}: use at least 100")
    spec = load_study(study)
    path = db or spec.database_path
    if not Path(path).is_file():
        raise CueshiftError(f"{path}: no such study database (run `cueshift infer` first)")
    con = store.open_study(path)
    try:
        if spec.design != "stylisticbias":
            from cueshift.designs import analyze_design

            analyze_design(con, spec, console)
            return
        result = first_cut.overview(con, top=top)
        first_cut.print_overview(result, console, str(path))
        if overview_only or result.judgments.height == 0:
            return
        from cueshift.stats import print_headlines, run_analyses

        run_analyses(
            con,
            n_resamples=resamples,
            seed=seed,
            models=model,
            progress=progress and sys.stderr.isatty(),
            test=test,  # type: ignore[arg-type]
            ci_method=ci,  # type: ignore[arg-type]
        )
        print_headlines(con, console)
    finally:
        con.close()


@app.command()
@_guard
def sql(
    query: Annotated[str, typer.Argument(help='One read-only statement, e.g. "FROM delta LIMIT 5".')],
    study: StudyOption = "default",
    db: DbOption = None,
    rows: Annotated[int, typer.Option(help="Rows to print at most.")] = 50,
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
    import polars as pl

    from cueshift.store import export, readonly
    from cueshift.study.config import load_study

    path = db or load_study(study).database_path
    target = export.check_target(out, force=force, protected=[Path(path)]) if out is not None else None
    frame = readonly.run_query(path, query)
    if target is not None:
        export.write_frame(frame, target)
        console.print(f"{frame.height:,} rows -> {target.path}", markup=False, soft_wrap=True)
        return
    if csv:
        sys.stdout.write(frame.write_csv())
        return
    with pl.Config(tbl_rows=rows, tbl_cols=-1, tbl_width_chars=200, fmt_str_lengths=60):
        console.print(str(frame.head(rows)), markup=False, highlight=False, soft_wrap=True)


@app.command()
@_guard
def merge(
    output: Annotated[Path, typer.Argument(help="Database to merge into (created if needed).")],
    shards: Annotated[list[Path], typer.Argument(help="Shard databases written by `infer --shard K/N`.")],
) -> None:
    """Merge shard databases into one (all or nothing; conflicting rows are an error)."""
    from cueshift.designs.runner import merge_databases

    added = merge_databases(output, shards)
    console.print(", ".join(f"{table}: +{n:,}" for table, n in added.items()) + f" -> {output}", markup=False)


@app.command("show-study")
@_guard
def show_study(study: StudyOption = "default") -> None:
    """Print the fully resolved study configuration (defaults filled in) as JSON."""
    from cueshift.study.config import load_study

    console.print_json(load_study(study).model_dump_json())


from cueshift.report.cli import report_command  # noqa: E402  (after _guard is defined)

app.command("report")(_guard(report_command))


def main() -> None:
    app()


if __name__ == "__main__":
    main()

"""The `cueshift` command line (the justfile recipes are thin wrappers over it)."""

from __future__ import annotations

import functools
import os
import shlex
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Annotated, NoReturn, ParamSpec, TypeVar


def _stop_while_starting(signum: int, frame: FrameType | None) -> None:
    """Ctrl-C or SIGTERM while this module loads (seconds: DuckDB, polars): nothing is done yet."""
    how = "stopped by SIGTERM" if signum == signal.SIGTERM else "interrupted"
    sys.stderr.write(f"{how} while starting: nothing was done\n")
    sys.stderr.flush()
    os._exit(128 + signum)


# until the end of this module (then the handlers before it again): one line, not a traceback
_STARTING = (
    {signum: signal.signal(signum, _stop_while_starting) for signum in (signal.SIGINT, signal.SIGTERM)}
    if threading.current_thread() is threading.main_thread()
    else {}
)

import duckdb  # noqa: E402
import typer  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.markup import escape  # noqa: E402

from cueshift.errors import CueshiftError  # noqa: E402

if TYPE_CHECKING:
    from cueshift.render import Catalog

P = ParamSpec("P")
R = TypeVar("R")

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


def _fail(message: str) -> NoReturn:
    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(2)


def _terminated() -> bool:
    """Whether SIGTERM stopped this command (only ``infer`` installs the handler)."""
    interrupts = sys.modules.get("cueshift.execution.interrupts")
    return interrupts is not None and bool(interrupts.terminated())


#: What an interrupted command keeps, by command (default: infer's committed batches).
_KEPT = {
    "analyze": "result tables are replaced in one transaction, so none is half-written; "
    "run the same command to analyze again",
}


def _interrupted(exc: BaseException | None = None, command: str = "") -> NoReturn:
    """One line on what is kept and how to resume; exit 143 after SIGTERM, 130 after Ctrl-C."""
    from cueshift.execution.interrupts import RunInterrupted

    terminated = _terminated()
    how = "stopped by SIGTERM" if terminated else "interrupted"
    if isinstance(exc, RunInterrupted):  # infer: what is stored (counted after the rollback)
        again = shlex.join(["cueshift", *sys.argv[1:]])
        line = f"{how}: {exc.stored_line()}, an unfinished batch rolled back; resume with: {again}"
    else:
        kept = _KEPT.get(command, "every committed batch is kept; run the same command to resume")
        line = f"{how}: {kept}"
    err_console.print(line, markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(143 if terminated else 130)


def _after_interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` came of an interrupt (see :func:`cueshift.execution.interrupts.is_interrupt`):
    ``analyze`` interrupts the running statement, whose error may reach here first."""
    from cueshift.execution.interrupts import is_interrupt

    return is_interrupt(exc)


def _cause(exc: BaseException) -> BaseException:
    """The error a failed ROLLBACK would hide (DuckDB had aborted the transaction already)."""
    while "no transaction is active" in str(exc) and exc.__context__ is not None:
        exc = exc.__context__
    return exc


def _guard(func: Callable[P, R]) -> Callable[P, R]:
    """Turn user errors, I/O errors (a full disk, an unwritable folder) and Ctrl-C into one line:
    exit code 2 (130 when interrupted), no traceback."""

    command = func.__name__.removesuffix("_command")

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except CueshiftError as exc:
            if _after_interrupt(exc):  # a statement interrupted by the signal, reported as such
                _interrupted(exc, command)
            _fail(str(exc))
        except duckdb.Error as exc:
            cause = _cause(exc)
            if _after_interrupt(exc):  # DuckDB's "Query interrupted" and InterruptException included
                _interrupted(exc, command)
            lines = str(cause).strip().splitlines()
            _fail(f"database: {lines[0] if lines else type(cause).__name__}")
        except OSError as exc:  # ENOSPC, EROFS, EACCES, ENOTDIR ... raised outside the store's checks
            where = exc.filename if exc.filename else f"cueshift {command}"
            _fail(f"{where}: {exc.strerror or exc}")
        except KeyboardInterrupt as exc:
            _interrupted(exc, command)
        except RuntimeError as exc:
            if isinstance(exc, typer.Exit):
                raise
            if str(exc) != "Query interrupted" and not _terminated():  # DuckDB's word for Ctrl-C
                raise
            _interrupted(exc, command)
        except BaseException as exc:  # once SIGTERM came, whatever a library made of the interrupt
            if isinstance(exc, (SystemExit, typer.Exit)) or not _terminated():
                raise
            _interrupted(exc, command)

    return wrapper


@app.command()
@_guard
def infer(
    study: StudyOption = "default",
    db: DbOption = None,
    shard: Annotated[str, typer.Option(help="Run shard K of N (K/N) into its own database file.")] = "1/1",
    limit: Annotated[int | None, typer.Option(help="Stop after this many new answers.")] = None,
    progress: Annotated[bool, typer.Option(help="Show progress bars.")] = True,
    executor: Annotated[
        str, typer.Option(help="Where the models run: 'local' (this process) or 'ray' (a Ray cluster).")
    ] = "local",
    address: Annotated[
        str | None,
        typer.Option(
            help="--executor ray: 'auto' (this machine's cluster) or ray://host:port; default: a new one."
        ),
    ] = None,
    workers: Annotated[
        int | None, typer.Option(help="--executor ray: actors per model (default: what the cluster holds).")
    ] = None,
    snapshot_every: Annotated[
        float,
        typer.Option(
            help="Seconds between snapshots that analyze, sql, report, view and status read while "
            "this run holds the database (0: none)."
        ),
    ] = 30.0,
) -> None:
    """Ask every question of the study's design not stored yet (resumes after any interruption).

    Ctrl-C (exit 130) or SIGTERM (exit 143) rolls back the batch in flight and says how to resume.
    """
    from cueshift.designs import load_study
    from cueshift.execution.executor_option import make_executor
    from cueshift.execution.interrupts import stop_on_sigterm
    from cueshift.execution.runner import Shard, run_study

    stop_on_sigterm()
    if snapshot_every < 0:
        raise CueshiftError(f"--snapshot-every {snapshot_every}: use 0 (none) or more seconds")
    spec = load_study(study)
    summary = run_study(
        spec,
        database=db,
        shard=Shard.parse(shard),
        progress=progress and sys.stderr.isatty(),
        console=err_console,
        max_judgments=limit,
        executor=make_executor(executor, address=address, workers=workers),
        snapshot_every=snapshot_every,
    )
    console.print(
        f"study [bold]{escape(spec.name)}[/]: {summary.n_written:,} new answers "
        f"({summary.n_stored_before:,} already stored) in {summary.seconds:.1f} s "
        f"-> {escape(str(summary.database))}",
        soft_wrap=True,
    )
    for note in summary.notes:  # failures, server identity, consistency probe (server text: literal)
        console.print(note, markup=False, highlight=False, soft_wrap=True)


@app.command()
@_guard
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
            "(stylisticbias, default 10,000), random split-halves (probe, default [probe] n_splits)."
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(help="Seed of the design's random step (default 0; probe: [probe] split_seed)."),
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
    model: Annotated[list[str] | None, typer.Option(help="Restrict to these model ids (repeatable).")] = None,
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
            help="Sensitivity analysis (stylisticbias, [quality] encoder): leave out the variations whose "
            "identity preservation (cosine with the base's CLIP embedding) is below this."
        ),
    ] = None,
    overview_only: Annotated[
        bool, typer.Option(help="Print the first-cut overview only; no statistics.")
    ] = False,
    progress: Annotated[bool, typer.Option(help="Show progress bars.")] = True,
) -> None:
    """Run every analysis of the study's design into result_* tables, print its summary.

    An option the design cannot honour is refused (one line naming it), never ignored.
    Ctrl-C (exit 130) or SIGTERM (exit 143) stops it at once, a running database statement
    included; nothing is half-written (the result tables are replaced in one transaction).
    """
    from cueshift import store
    from cueshift.designs import AnalysisRequest, analyze_design, design_of, load_study
    from cueshift.execution.interrupts import prompt_interrupts, stop_on_sigterm

    stop_on_sigterm()
    if resamples is not None and resamples < 100:
        raise CueshiftError(f"--resamples {resamples}: use at least 100")
    spec = load_study(study)
    request = AnalysisRequest(
        seed, resamples, test, ci, tuple(model or ()), top, overview_only, phi, min_identity=min_identity
    )
    design = design_of(spec)
    design.options.check(design.name, request)
    path = Path(db or spec.database_path)
    if not path.is_file():
        raise CueshiftError(f"{path}: no such study database (run `cueshift infer` first)")
    con = store.open_study(_analysis_target(path))
    try:
        with prompt_interrupts(con):
            analyze_design(con, spec, console, request=request, progress=progress and sys.stderr.isatty())
    finally:
        con.close()


def _analysis_target(path: Path) -> Path:
    """Where ``analyze`` writes: the database, or while a running infer holds it, a copy of its
    snapshot (``<stem>.partial<suffix>``; the study database gets its results after the run)."""
    import os
    import shutil

    from cueshift.store.snapshot import count_answers, partial_path, readable

    source, snapshot = readable(path)
    if snapshot is None:
        return path
    partial = partial_path(path)
    copying = partial.with_name(partial.name + ".tmp")
    try:
        shutil.copyfile(source, copying)
        os.replace(copying, partial)
    except BaseException:  # a full disk, Ctrl-C: no half copy left
        copying.unlink(missing_ok=True)
        raise
    with duckdb.connect(str(partial), read_only=True) as con:
        answers = count_answers(con)
    err_console.print(
        f"{snapshot.describe(answers)}; analyzing a copy, {partial} "
        f"(`cueshift report --db {partial}` shows it; analyze again after the run for the study database)",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    return partial


@app.command()
@_guard
def status(study: StudyOption = "default", db: DbOption = None) -> None:
    """Progress of the study's latest run: planned, stored, rate, ETA, failures per model.

    Readable while `cueshift infer` runs (from the snapshot it publishes).
    """
    from cueshift.designs import load_study
    from cueshift.execution.status import print_status, study_status

    print_status(study_status(db or load_study(study).database_path), console)


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

    from cueshift.designs import load_study
    from cueshift.store import export, readonly

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
    from cueshift.store import merge_databases

    added = merge_databases(output, shards)
    console.print(", ".join(f"{table}: +{n:,}" for table, n in added.items()) + f" -> {output}", markup=False)


@app.command()
@_guard
def upgrade(study: StudyOption = "default", db: DbOption = None) -> None:
    """Upgrade a study database of an older schema version (2 or 3) to the current one.

    Every row is kept (checked row for row); result tables are dropped (run `cueshift analyze`
    again). The old file is kept as <name>.schema-v<N>.duckdb; a kill leaves it whole.
    """
    from cueshift.designs import load_study
    from cueshift.store.upgrade import upgrade_database

    done = upgrade_database(db or load_study(study).database_path)
    console.print(done.summary(), markup=False, highlight=False, soft_wrap=True)


@app.command("show-study")
@_guard
def show_study(study: StudyOption = "default") -> None:
    """Print the fully resolved study configuration (defaults filled in) as JSON."""
    from cueshift.designs import load_study

    console.print_json(load_study(study).model_dump_json())


from cueshift.render.cli import report_command_for  # noqa: E402  (after _guard is defined)


def _report_target(study: str) -> tuple[Catalog, Path]:
    """The report catalog of the study's design and the study's database (``--study`` in)."""
    from cueshift.designs import design_of, load_study

    spec = load_study(study)
    return design_of(spec).report(), spec.database_path


app.command("report")(_guard(report_command_for(_report_target)))


@app.command()
@_guard
def view(
    study: StudyOption = "default",
    db: DbOption = None,
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    host: Annotated[str, typer.Option(help="Interface to bind (default: this machine only).")] = "127.0.0.1",
    images: Annotated[
        Path | None, typer.Option(help="Benchmark root of the images (default: found from the database).")
    ] = None,
) -> None:
    """Browse the study database (read-only) in a browser: the faces and answers behind each number."""
    try:
        from cueshift.viewer import serve
    except ImportError as exc:
        missing = f"cueshift view needs the 'view' extra ({exc.name})"
        raise CueshiftError(f"{missing}: pip install -e '.[view]'") from None
    from cueshift.designs import load_study

    serve(db or load_study(study).database_path, host=host, port=port, images=images)


# -- cueshift import: data users already have (docs/importing.md) ---------------------------------

import_app = typer.Typer(
    no_args_is_help=True,
    help="Import data users already have: the One Million Impressions ratings, release-code judgments.",
)
app.add_typer(import_app, name="import")


@import_app.command("omi")
@_guard
def import_omi_command(
    folder: Annotated[Path, typer.Argument(help="OMI folder: images/<n>.jpg and attribute_ratings.csv.")],
    out: Annotated[Path, typer.Option(help="Folder for the study file and the ratings it reads.")] = Path(
        "omi-study"
    ),
    name: Annotated[str, typer.Option(help="Study name (and database file stem).")] = "omi",
    model: Annotated[
        list[str] | None,
        typer.Option(help="Model ID=BACKEND[:CHECKPOINT], repeatable (default: a CLIP ViT-B/32)."),
    ] = None,
    rating_type: Annotated[
        list[str] | None,
        typer.Option(help="rating_type values to keep, repeatable; 'all' pools them (needed when mixed)."),
    ] = None,
    reliability: Annotated[
        Path | None, typer.Option(help="Published reliabilities: CSV attribute,reliability (-1..1 or 0-100).")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the pseudo-rater order.")] = 0,
    force: Annotated[bool, typer.Option(help="Replace study files already in --out.")] = False,
    progress: Annotated[bool, typer.Option(help="Show progress bars.")] = True,
) -> None:
    """Build a probe study (seed 004) from the One Million Impressions layout (nothing written if bad)."""
    from cueshift.imports.console import print_omi_summary
    from cueshift.imports.omi import ModelSpec, import_omi

    result = import_omi(
        folder,
        out,
        name=name,
        models=[ModelSpec.parse(m) for m in model or []],
        rating_types=rating_type or [],
        reliability=reliability,
        seed=seed,
        force=force,
        progress=progress and sys.stderr.isatty(),
    )
    print_omi_summary(result, console)


@import_app.command("judgments")
@_guard
def import_judgments_command(
    folder: Annotated[
        Path, typer.Argument(help="Release checkout, its output/ folder or output/judgements/.")
    ],
    study: StudyOption = "default",
    db: DbOption = None,
    workers: Annotated[
        int | None, typer.Option(help="Processes reading the files (default: the CPU count).")
    ] = None,
    progress: Annotated[bool, typer.Option(help="Show progress bars.")] = True,
) -> None:
    """Load judgments made with the StylisticBias release code into the study database (idempotent)."""
    from cueshift.imports.console import print_judgment_summary
    from cueshift.imports.judgments import import_judgments

    result = import_judgments(
        folder, study, database=db, workers=workers, progress=progress and sys.stderr.isatty()
    )
    print_judgment_summary(result, console)


# -- cueshift plan: power, minimum detectable effects and cost before a run (docs/plan.md) -------------


@app.command("plan")
@_guard
def plan_command(
    study: StudyOption = "default",
    pilot: Annotated[
        Path | None, typer.Option(help="Pilot study database of the same design (default: the defaults).")
    ] = None,
    target_effect: Annotated[
        float | None,
        typer.Option(help="Effect to detect (|SBS| 0.02, score gap 0.05, win share 0.6, CI half-width 0.1)."),
    ] = None,
    power: Annotated[float, typer.Option(help="Target power.")] = 0.8,
    alpha: Annotated[float, typer.Option(help="FDR level of BH per family (single tests: alpha).")] = 0.05,
    faces: Annotated[
        int | None, typer.Option(help="Plan for this many faces (individuals, images; trials for pairwise).")
    ] = None,
    simulations: Annotated[int, typer.Option(help="Simulated studies at the planned size (0: none).")] = 200,
    curve_simulations: Annotated[int, typer.Option(help="Simulated studies per power-curve point.")] = 200,
    seed: Annotated[int, typer.Option(help="Seed of the simulations.")] = 0,
    image_tokens: Annotated[int, typer.Option(help="Prefill tokens of one image.")] = 576,
    question_tokens: Annotated[
        float | None, typer.Option(help="Prefill tokens of one question (default: from the prompt text).")
    ] = None,
    answer_tokens: Annotated[int, typer.Option(help="Tokens of one sampled answer.")] = 4,
    throughput: Annotated[
        float | None, typer.Option(help="Prompts per second per model (default: the pilot's latencies).")
    ] = None,
    out: Annotated[Path | None, typer.Option(help="Output folder (default: runs/<study>-plan/).")] = None,
) -> None:
    """Plan a study before running it: power, minimum detectable effects, half-widths, units and cost."""
    from cueshift.designs import load_study
    from cueshift.plan import CostSettings, PlanRequest, plan_study, print_plan, targets_for, write_plan

    spec = load_study(study)
    request = PlanRequest(
        spec,
        pilot=pilot,
        targets=targets_for(spec.design, target_effect, power, alpha),
        faces=faces,
        simulations=simulations,
        curve_simulations=curve_simulations,
        seed=seed,
        cost=CostSettings(image_tokens, question_tokens, answer_tokens, throughput),
    )
    result = plan_study(request)
    print_plan(result, console)
    folder = out or Path("runs") / f"{spec.name}-plan"
    written = write_plan(result, folder)
    console.print(f"{len(written)} files -> {escape(str(folder))} (report section: plan.md)", soft_wrap=True)


def main() -> None:
    app()


for _signum, _handler in _STARTING.items():
    if _handler is not None:  # None: a handler not set from Python, left as it is
        signal.signal(_signum, _handler)

if __name__ == "__main__":
    main()

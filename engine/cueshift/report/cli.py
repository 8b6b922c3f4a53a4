"""``cueshift report``: render the RQ1–RQ3 report of a study database to HTML and PDF.

Registered by the main CLI (``engine/cli.py``) as::

    from cueshift.report.cli import report_command
    app.command("report")(_guard(report_command))
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from cueshift.errors import CueshiftError

console = Console()
err_console = Console(stderr=True)


def report_command(
    study: Annotated[
        str,
        typer.Option("--study", "-s", help="Study file (TOML), or 'default' for the embedded default study."),
    ] = "default",
    db: Annotated[
        Path | None, typer.Option("--db", help="Study database (default: the study's `database`).")
    ] = None,
    models: Annotated[
        str,
        typer.Option("--models", "-m", help="Comma-separated model subset (default: every model in the DB)."),
    ] = "",
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder.")] = Path("reports/_out"),
    formats: Annotated[
        str, typer.Option("--format", "-f", help="Formats: html, pdf or html,pdf.")
    ] = "html,pdf",
    engine: Annotated[
        str,
        typer.Option(help="auto (Quarto when on PATH, else Jupyter + pandoc + typst), quarto or jupyter."),
    ] = "auto",
    document: Annotated[
        Path | None,
        typer.Option(help="Report source (.qmd); default: reports/study.qmd, or reports/<design>.qmd."),
    ] = None,
    tables: Annotated[
        bool, typer.Option("--tables", help="Print the report's tables to the console instead of rendering.")
    ] = False,
) -> None:
    """Render the study report (HTML and PDF) from the study database; every number is read at render time."""
    from cueshift.report._render import DEFAULT_DOCUMENT, quarto_available, render_report
    from cueshift.study.config import load_study

    spec = load_study(study)
    path = db or spec.database_path
    if document is None and spec.design != "stylisticbias":
        document = DEFAULT_DOCUMENT.with_name(f"{spec.design}.qmd")
    if tables:
        print_tables(path, models)
        return
    if engine not in ("auto", "quarto", "jupyter"):
        raise CueshiftError(f"--engine {engine!r}: expected auto, quarto or jupyter")
    wanted = [f.strip() for f in formats.split(",") if f.strip()]
    if engine == "auto":
        how = (
            "quarto (found on PATH)"
            if quarto_available()
            else "Jupyter + pandoc + typst (quarto not on PATH)"
        )
        err_console.print(f"rendering with {how} ...", highlight=False)
    result = render_report(
        path,
        document=document or DEFAULT_DOCUMENT,
        models=models,
        out_dir=out,
        formats=wanted,  # checked by render_report
        engine=engine,
    )
    console.print(
        f"report of [bold]{path}[/] ({', '.join(result.models)}) rendered with [bold]{result.engine}[/] "
        f"in {result.seconds:.1f} s:",
        highlight=False,
    )
    for fmt, target in result.outputs.items():
        console.print(f"  {fmt}: {target}", highlight=False)


def print_tables(db: Path, models: str = "") -> None:
    """Print every declared table of the report to the console (rich), or why it is not computed."""
    from cueshift.report._outputs import to_rich
    from cueshift.report.doc import Report, registry

    report = Report.open(db, models)
    try:
        for key, spec in registry().items():
            gone = report.missing(spec.requires)
            if gone:
                console.print(
                    f"[yellow]{spec.title}[/]: not computed ({', '.join(gone)} missing; "
                    "run `cueshift analyze`)",
                    highlight=False,
                )
                continue
            console.print(to_rich(report.styled(key)))
            console.print()
    finally:
        report.close()

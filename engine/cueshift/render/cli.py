"""``cueshift report``: render a study's report document to HTML and PDF, or print its tables.

The report layer cannot read a study file's design (the design registry sits above it), so the
command line passes a function from the ``--study`` value to the design's report
:class:`~cueshift.render.Catalog` and the study's database, and registers the command it gets::

    from cueshift.render.cli import report_command_for

    def report_target(study: str) -> tuple[Catalog, Path]:
        spec = load_study(study)
        return design_of(spec).report(), spec.database_path

    app.command("report")(_guard(report_command_for(report_target)))
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from cueshift._console import console_for
from cueshift.extras import require
from cueshift.render._paths import DEFAULT_OUT
from cueshift.store.result_version import commands_writing

if TYPE_CHECKING:  # the report machinery is imported when the command runs, not when the CLI starts
    from cueshift.render._catalog import Catalog
    from cueshift.render._document import Report
    from cueshift.render._spec import TableSpec

console = console_for()
err_console = console_for(stderr=True)

#: ``--study`` value → (the report catalog of the study's design, the study's database)
ReportTarget = Callable[[str], "tuple[Catalog, Path]"]


def report_command_for(resolve: ReportTarget) -> Callable[..., None]:
    """The ``cueshift report`` command, finding a study's report and database through ``resolve``."""

    def report_command(
        study: Annotated[
            str,
            typer.Option("--study", "-s", help="Study file (TOML), or 'default' for the embedded study."),
        ] = "default",
        db: Annotated[
            Path | None, typer.Option("--db", help="Study database (default: the study's `database`).")
        ] = None,
        models: Annotated[
            list[str] | None,
            typer.Option(
                "--models",
                "-m",
                metavar="ID,ID",
                help="Model subset: ids, comma-separated or repeated (default: every model)",
            ),
        ] = None,
        out: Annotated[Path, typer.Option("--out", "-o", help="Output folder.")] = DEFAULT_OUT,
        formats: Annotated[
            str, typer.Option("--format", "-f", help="Formats: html, pdf or html,pdf.")
        ] = "html,pdf",
        engine: Annotated[
            str,
            typer.Option(help="auto (Quarto when on PATH, else Jupyter + pandoc + typst), quarto, jupyter."),
        ] = "auto",
        document: Annotated[
            Path | None,
            typer.Option(help="Report source (.qmd); default: the study design's document in reports/."),
        ] = None,
        tables: Annotated[
            bool, typer.Option("--tables", help="Print the report's tables to the console, no rendering.")
        ] = False,
    ) -> None:
        """Render the study report (HTML and PDF) from the study database; numbers are read at render time."""
        require("report", "cueshift report")  # before any work: one line naming the extra
        if tables:  # printed, not rendered: an option of the rendering is refused, not ignored
            check_tables_only(out=out, formats=formats, engine=engine, document=document)
        from cueshift.render._database import open_for_report
        from cueshift.render._render import (
            check_document,
            check_engine,
            check_formats,
            check_out_dir,
            quarto_available,
            render_report,
        )
        from cueshift.store.model_subset import parse_models

        chosen = ",".join(parse_models(models))  # --models a,b --models c
        catalog, database = resolve(study)
        path = db or database
        if tables:
            print_tables(path, catalog, chosen)
            return
        how = check_engine(engine)
        check_out_dir(out)  # before anything renders: a file named --out, a read-only folder
        wanted = check_formats(f.strip() for f in formats.split(",") if f.strip())
        source = check_document(document or catalog.document_path)  # before "rendering with ...": one line
        con, _, _ = open_for_report(
            path, chosen
        )  # a database it cannot render: one line, nothing said before
        con.close()
        if how == "auto":
            with_what = (
                "quarto (found on PATH)"
                if quarto_available()
                else "Jupyter + pandoc + typst (quarto not on PATH)"
            )
            err_console.print(f"rendering with {with_what} ...", highlight=False)
        result = render_report(
            path,
            document=source,
            models=chosen,
            out_dir=out,
            formats=wanted,
            engine=how,
        )
        console.print(
            f"report of [bold]{escape(str(path))}[/] ({', '.join(result.models)}) "
            f"rendered with [bold]{result.engine}[/] "
            f"in {result.seconds:.1f} s:",
            highlight=False,
        )
        for fmt, target in result.outputs.items():
            console.print(f"  {fmt}: {target}", highlight=False, markup=False)

    return report_command


def check_tables_only(*, out: Path, formats: str, engine: str, document: Path | None) -> None:
    """Refuse, with ``--tables``, every option of the rendering given a value of its own.

    Raises
    ------
    ConfigError
        One line naming the option (``--tables`` prints the tables and renders nothing).
    """
    from cueshift.errors import ConfigError

    for option, given in (
        ("--out", out != DEFAULT_OUT),
        ("--format", formats != "html,pdf"),
        ("--engine", engine != "auto"),
        ("--document", document is not None),
    ):
        if given:
            raise ConfigError(f"{option}: --tables prints the tables and renders nothing; leave one out")


def shown_tables(report: Report, catalog: Catalog) -> Iterator[tuple[TableSpec, list[str]]]:
    """The declared tables ``--tables`` shows (and ``cs.report(tables=True)`` returns), in order,
    each with the source tables it lacks (none: computed); an optional table without rows is left out."""
    for spec in catalog.tables:
        gone = report.missing(spec.requires)
        if not (spec.optional and (gone or not report.styled(spec.key).n_rows)):
            yield spec, gone


def print_tables(db: Path, catalog: Catalog, models: str = "") -> None:
    """Print every declared table of ``catalog`` to the console (rich), or why it is not computed
    (an optional table without rows is left out)."""
    from cueshift.render._document import Report
    from cueshift.render._outputs import to_rich

    with Report.open(db, models, catalog) as report:
        for spec, gone in shown_tables(report, catalog):
            if gone:
                console.print(
                    f"[yellow]{spec.title}[/]: not computed ({', '.join(gone)} missing; "
                    f"run `{'` and `'.join(commands_writing(gone))}`)",
                    highlight=False,
                )
                continue
            console.print(to_rich(report.styled(spec.key)))
            console.print()

"""``cueshift report``: render a study's report document to HTML and PDF, or print its tables.

The report layer cannot read a study file's design (the design registry sits above it), so the
command line (:mod:`cueshift.cli.report`, which declares the options) passes a function from the
``--study`` value to the design's report :class:`~cueshift.render.Catalog` and the study's
database::

    from cueshift.render.cli import report_study

    def report_target(study: str) -> tuple[Catalog, Path]:
        spec = load_study(study)
        return design_of(spec).report(), spec.database_path

    report_study(report_target, study="study.toml", db=None, models=None, out=DEFAULT_OUT,
                 formats="html,pdf", engine="auto", document=None, tables=False)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from rich.markup import escape

from cueshift._console import console_for
from cueshift.render._paths import DEFAULT_OUT
from cueshift.store.result_version import commands_writing

if TYPE_CHECKING:
    from cueshift.render._catalog import Catalog
    from cueshift.render._document import Report
    from cueshift.render._spec import TableSpec

console = console_for()
err_console = console_for(stderr=True)

#: ``--study`` value → (the report catalog of the study's design, the study's database)
ReportTarget = Callable[[str], "tuple[Catalog, Path]"]


def report_study(
    resolve: ReportTarget,
    *,
    study: str,
    db: Path | None,
    models: list[str] | None,
    out: Path,
    formats: str,
    engine: str,
    document: Path | None,
    tables: bool,
) -> None:
    """Run ``cueshift report``: render the report of ``study`` (found through ``resolve``), or print
    its tables (``tables``); ``out`` is the output folder, :data:`~cueshift.render.DEFAULT_OUT` unless
    given (``--tables`` refuses any other).

    Every option is checked before anything is read, rendered or written.

    Raises
    ------
    CueshiftError
        One line naming the option, the study file or the database.
    """
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
    con, _, _ = open_for_report(path, chosen)  # a database it cannot render: one line, nothing said before
    con.close()
    if how == "auto":
        with_what = (
            "quarto (found on PATH)"
            if quarto_available()
            else "Jupyter + pandoc + typst (quarto not on PATH)"
        )
        err_console.print(f"rendering with {with_what} ...", highlight=False)
    result = render_report(path, document=source, models=chosen, out_dir=out, formats=wanted, engine=how)
    console.print(
        f"report of [bold]{escape(str(path))}[/] ({', '.join(result.models)}) "
        f"rendered with [bold]{result.engine}[/] "
        f"in {result.seconds:.1f} s:",
        highlight=False,
    )
    for fmt, target in result.outputs.items():
        console.print(f"  {fmt}: {target}", highlight=False, markup=False)


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

"""``cueshift report``: the command's options; the rendering is :func:`cueshift.render.cli.report_study`.

The report machinery (polars, pandera, great_tables) and its extra are imported when the command
runs, so ``cueshift --help`` and ``cueshift report --help`` load none of it (D86).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from cueshift.extras import require

if TYPE_CHECKING:
    from cueshift.render import Catalog

#: ``--out``'s default: the value of :data:`cueshift.render.DEFAULT_OUT` (``tests/cli/test_startup.py``
#: checks), written out here because importing it would load the report machinery.
DEFAULT_OUT = Path("reports/_out")


def _report_target(study: str) -> tuple[Catalog, Path]:
    """The report catalog of the study's design and the study's database (``--study`` in)."""
    return _target_read(study)(study)


def _target_read(study: str) -> Callable[[str], tuple[Catalog, Path]]:
    """The study file read now, before the report machinery loads (a bad study file is one line at
    once, D93); what it returns gives the catalog and database where ``report_study`` asks."""
    from cueshift.designs import load_study

    spec = load_study(study)

    def resolve(_: str) -> tuple[Catalog, Path]:
        from cueshift.designs import design_of

        return design_of(spec).report(), spec.database_path

    return resolve


def report(
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
    # report_study checks --tables' options (check_tables_only) before it reads the study: the study
    # is read first here only when that check cannot refuse (no rendering option given a value).
    rendering_options_left = (out, formats, engine, document) == (DEFAULT_OUT, "html,pdf", "auto", None)
    resolve = _target_read(study) if not tables or rendering_options_left else _report_target
    from cueshift.render.cli import report_study

    report_study(
        resolve,
        study=study,
        db=db,
        models=models,
        out=out,
        formats=formats,
        engine=engine,
        document=document,
        tables=tables,
    )

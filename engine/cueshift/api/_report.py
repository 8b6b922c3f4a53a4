"""``cueshift report`` as a function: the study's report document rendered to HTML and PDF, or
(``tables=True``, the command's ``--tables``) its tables returned as notebook display objects."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal, overload

from cueshift.api._locate import DEFAULT, database_of, one_line_errors
from cueshift.errors import CueshiftError
from cueshift.extras import require

if TYPE_CHECKING:
    from cueshift.render import Catalog, MarkdownOutput, TableOutput

#: ``formats`` when left out, and its ``--format`` spelling.
DEFAULT_FORMATS = ("html", "pdf")


@overload
def report(
    study: str | Path = ...,
    *,
    db: str | Path | None = ...,
    models: str | Sequence[str] | None = ...,
    out: str | Path | None = ...,
    formats: Iterable[str] = ...,
    engine: str = ...,
    document: str | Path | None = ...,
    tables: Literal[False] = ...,
) -> dict[str, Path]: ...


@overload
def report(
    study: str | Path = ...,
    *,
    db: str | Path | None = ...,
    models: str | Sequence[str] | None = ...,
    out: str | Path | None = ...,
    formats: Iterable[str] = ...,
    engine: str = ...,
    document: str | Path | None = ...,
    tables: Literal[True],
) -> dict[str, TableOutput | MarkdownOutput]: ...


@one_line_errors
def report(
    study: str | Path = DEFAULT,
    *,
    db: str | Path | None = None,
    models: str | Sequence[str] | None = None,
    out: str | Path | None = None,
    formats: Iterable[str] = DEFAULT_FORMATS,
    engine: str = "auto",
    document: str | Path | None = None,
    tables: bool = False,
) -> dict[str, Path] | dict[str, TableOutput | MarkdownOutput]:
    """Render the study's report document to HTML and PDF, as ``cueshift report``.

    Parameters
    ----------
    study, db
        A study file or ``"default"``, and its database (default: the study's ``database``).
    models
        Model subset (a list or ``"a,b"``; default: every model).
    out
        Output folder (default ``reports/_out``).
    formats, engine
        ``"html"`` and/or ``"pdf"``; ``"auto"`` (Quarto when on PATH), ``"quarto"`` or ``"jupyter"``.
    document
        ``--document``: the report source (``.qmd``); default: the study design's document.
    tables
        ``--tables``: render nothing and return the report's tables instead, those the command
        prints, in its order, by table key: each a display object (a notebook shows it as the
        report's HTML table; ``.styled`` holds its title, column labels, cell texts and notes),
        or the report's "not computed" note for a table whose results are missing. ``out``,
        ``formats``, ``engine`` and ``document`` are refused with it, as by the command.

    Returns
    -------
    dict
        The file written for each format; with ``tables=True`` the tables by key.

    Raises
    ------
    CueshiftError
        A database it cannot render, an unknown model, an unwritable folder, a failing cell, an
        option of the rendering given with ``tables=True``: the command's one line.

    Examples
    --------
    >>> cs.report("study.toml", formats=["html"])  # doctest: +SKIP
    {'html': PosixPath('reports/_out/stylisticbias.html')}
    >>> cs.report("study.toml", tables=True)["table3"]  # doctest: +SKIP
    <the report's Table 3, as HTML>
    """
    require("report", "cueshift report")  # before any work: the CLI's line naming the extra
    formats = tuple(formats)
    rendering_options_left = (out, formats, engine, document) == (None, DEFAULT_FORMATS, "auto", None)
    if tables and not rendering_options_left:  # as the command: refused before anything is read
        from cueshift.render import DEFAULT_OUT
        from cueshift.render.cli import check_tables_only

        given = Path(document) if document is not None else None
        where = Path(out) if out is not None else DEFAULT_OUT
        check_tables_only(out=where, formats=",".join(formats), engine=engine, document=given)
    path, spec = database_of(study, db)  # a bad study file is one line before the machinery loads
    if spec is None:
        raise CueshiftError(f"{study}: give a study file or 'default' (and db=), not a database")
    from cueshift.designs import design_of
    from cueshift.render import DEFAULT_OUT, render_report
    from cueshift.store.model_subset import parse_models

    catalog = design_of(spec).report()
    chosen = ",".join(parse_models(models))
    if tables:
        return _tables(path, catalog, chosen)
    result = render_report(
        path,
        document=document if document is not None else catalog.document_path,
        models=chosen,
        out_dir=Path(out) if out is not None else DEFAULT_OUT,
        formats=formats,
        engine=engine,
    )
    return dict(result.outputs)


def _tables(path: Path, catalog: Catalog, models: str) -> dict[str, TableOutput | MarkdownOutput]:
    """The tables ``cueshift report --tables`` prints, as the report document shows them."""
    from cueshift.render import Report
    from cueshift.render.cli import shown_tables

    with Report.open(path, models, catalog) as report:
        return {spec.key: report.table(spec.key) for spec, _ in shown_tables(report, catalog)}

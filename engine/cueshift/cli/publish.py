"""Showing a study: ``report`` (the rendered document) and ``view`` (the browser viewer).

Both are optional features: their extras ('report', 'view') are imported when the command runs,
and a missing one is one line naming it (:mod:`cueshift.extras`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from cueshift.cli._common import DbOption, StudyOption
from cueshift.extras import require

if TYPE_CHECKING:
    from cueshift.render import Catalog


def _report_target(study: str) -> tuple[Catalog, Path]:
    """The report catalog of the study's design and the study's database (``--study`` in)."""
    from cueshift.designs import design_of, load_study

    spec = load_study(study)
    return design_of(spec).report(), spec.database_path


def report_command() -> Callable[..., None]:
    """The ``cueshift report`` command (:func:`cueshift.render.cli.report_command_for`)."""
    from cueshift.render.cli import report_command_for

    return report_command_for(_report_target)


def view(
    study: StudyOption = "default",
    db: DbOption = None,
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    host: Annotated[str, typer.Option(help="Interface to bind (default: this machine only).")] = "127.0.0.1",
    images: Annotated[
        Path | None, typer.Option(help="Image-set root of the images (default: found from the database).")
    ] = None,
) -> None:
    """Browse the study database (read-only) in a browser: the faces and answers behind each number."""
    require("view", "cueshift view")
    from cueshift.api import view as start_view  # the function's resolution and checks (D85)

    with start_view(study, db=db, port=port, host=host, images=images) as server:
        server.announce("Ctrl-C to stop")
        server.wait()  # until Ctrl-C, then stopped: exit 0, as before

"""Showing a study in the browser: ``view`` (``report``, the rendered document, is
:mod:`cueshift.cli.report`).

An optional feature: its extra ('view') is imported when the command runs, and a missing one is
one line naming it (:mod:`cueshift.extras`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cueshift.cli._common import DbOption, StudyOption
from cueshift.extras import require


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

"""``cueshift view`` as a function: the viewer served in a background thread, for a notebook or a
script, with the command's one-line errors; the command waits on what it returns (D85)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from cueshift.api._locate import DEFAULT, database_named, one_line_errors
from cueshift.extras import importing, require

if TYPE_CHECKING:
    from cueshift.viewer import ViewerServer


@one_line_errors
def view(
    study: str | Path = DEFAULT,
    *,
    db: str | Path | None = None,
    port: int = 8000,
    host: str = "127.0.0.1",
    images: str | Path | None = None,
    quiet: bool = True,
) -> ViewerServer:
    """Serve the study database in the browser viewer, in the background, as ``cueshift view``.

    Returns once the server listens; it serves until ``.stop()``, the end of a ``with`` block or
    the end of the Python process (a daemon thread). The database is opened read-only.

    Parameters
    ----------
    study, db
        The database ``db``, the study then not read; else the ``database`` of ``study``, a study
        file (``.toml``) or ``"default"``; else ``study`` itself, a study database (as ``status``,
        docs/decisions.md D84; ``cueshift view --study``/``--db`` the same).
    port
        Port to listen on; 0: a free port the system picks (``.url`` and ``.port`` name it).
    host
        Interface to bind; the default, this machine only.
    images
        Image-set root of the images (``--images``; default: found from the database).
    quiet
        Print nothing (False: the command's lines, the URL last).

    Returns
    -------
    cueshift.viewer.ViewerServer
        The running server: ``.url`` (``http://127.0.0.1:<port>/``), ``.port``, ``.database``,
        ``.running``; ``.stop()`` (idempotent: shuts it down, closes the database, frees the
        port), ``.wait()`` (block until Ctrl-C, then stop); a context manager that stops it; in
        Jupyter it shows as a link.

    Raises
    ------
    CueshiftError
        The command's one line, nothing left running: the 'view' extra missing, a missing or
        invalid study file (without ``db``), ``images`` not a folder (``--images DIR: no such
        folder``), ``host:port`` taken (``--host H --port P: cannot listen (...)``), no such
        study database or not one.

    Examples
    --------
    >>> import tempfile, urllib.request
    >>> from pathlib import Path
    >>> import cueshift as cs
    >>> from cueshift.api import write_demo_study
    >>> study_file = write_demo_study(Path(tempfile.mkdtemp()))
    >>> _ = cs.infer(study_file, limit=300, progress=False)
    >>> with cs.view(study_file, port=0) as server:
    ...     urllib.request.urlopen(server.url).status
    200
    """
    require("view", "cueshift view")  # before any work: the command's line naming the extra
    path = database_named(study, db)  # a bad study file: one line before the viewer loads (D93)
    with importing("view", "cueshift view"):
        from cueshift.viewer import start_viewer

    server = start_viewer(path, host=host, port=port, images=None if images is None else Path(images))
    if not quiet:
        server.announce("server.stop() to stop")
    return server

"""Start the viewer: uvicorn on localhost, the URL printed before the first request."""

from __future__ import annotations

import socket
import sys
from pathlib import Path
from typing import TextIO

import uvicorn

from cueshift.errors import CueshiftError
from cueshift.viewer.app import create_app
from cueshift.viewer.thumbs import DEFAULT_CACHE

#: Hosts that only this machine can reach.
LOCAL_HOSTS: frozenset[str] = frozenset({"127.0.0.1", "localhost", "::1"})


def _check_port(host: str, port: int) -> None:
    """Fail with one line, before the minutes of aggregation, when ``host:port`` cannot be bound."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise CueshiftError(f"--host {host} --port {port}: cannot listen ({exc.strerror})") from None


def serve(
    database: Path,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    images: Path | None = None,
    thumbs: Path = DEFAULT_CACHE,
    out: TextIO = sys.stdout,
) -> None:
    """Open ``database`` read-only, aggregate it, print the URL and serve until interrupted.

    Parameters
    ----------
    database
        The study database (never written).
    host, port
        Where to listen; the default binds this machine only. Another host is served as asked,
        with a warning: the pages show every image and answer of the study.
    images
        The image-set root holding the registered images (default: found from the study
        configuration stored in the database, see :mod:`cueshift.viewer.roots`).
    thumbs
        Folder of the thumbnail cache.
    """
    if images is not None and not images.is_dir():
        raise CueshiftError(f"--images {images}: no such folder")
    _check_port(host, port)
    app = create_app(database, images=images, thumbs=thumbs)
    viewer = app.state.viewer
    shown = f"[{host}]" if ":" in host else host
    where = str(viewer.root) if viewer.root else "not found (placeholders shown; pass --images DIR)"
    print(
        f"cueshift view: {viewer.source.name} ({viewer.source.design}) from {database}, read-only", file=out
    )
    print(f"  aggregated in {viewer.source.build_seconds:.1f} s; images: {where}", file=out)
    if host not in LOCAL_HOSTS:
        print(f"  warning: listening on {host}: other machines can open these pages", file=out)
    if viewer.source.stale_results:
        print(f"  note: {viewer.source.stale_results}", file=out)
    print(f"  open http://{shown}:{port}/  (Ctrl-C to stop)", file=out, flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)

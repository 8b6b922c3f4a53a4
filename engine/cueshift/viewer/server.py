"""Start the viewer: uvicorn in a background thread on a socket bound first, and the handle on it.

``cueshift view`` and :func:`cueshift.api.view` both call :func:`start_viewer`; the command then
prints the handle's lines and waits on it until Ctrl-C (docs/decisions.md D85).
"""

from __future__ import annotations

import html
import socket
import sys
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import TextIO

import uvicorn
from starlette.applications import Starlette

from cueshift.errors import CueshiftError
from cueshift.viewer.app import create_app
from cueshift.viewer.thumbs import DEFAULT_CACHE
from cueshift.viewer.viewer import Viewer

#: Hosts that only this machine can reach.
LOCAL_HOSTS: frozenset[str] = frozenset({"127.0.0.1", "localhost", "::1"})
#: Seconds the server may take from its thread's start to listening, and to stop.
START_SECONDS = 30.0
STOP_SECONDS = 10.0


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host:port`` (``port`` 0: a free one the system picks), bound before
    the seconds of aggregation; one line when it cannot be."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn: a restart may rebind
        sock.bind((host, port))
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        raise CueshiftError(f"--host {host} --port {port}: cannot listen ({exc.strerror or exc})") from None
    return sock


class ViewerServer:
    """A running viewer of one study database, served by uvicorn in a daemon thread.

    Made by :func:`start_viewer` (``cs.view``). ``url`` is where it listens, ``port`` the real
    port (the system's pick when 0 was asked), ``database`` the study database it reads (read-only),
    ``viewer`` what its pages read (:class:`~cueshift.viewer.Viewer`). ``stop()`` (idempotent) shuts
    it down, closes the database and frees the port; ``with`` stops it on leaving the block.
    """

    def __init__(self, app: Starlette, sock: socket.socket, database: Path, host: str) -> None:
        self.database = database
        self.host = host
        self.port = int(sock.getsockname()[1])
        self.viewer: Viewer = app.state.viewer
        shown = f"[{host}]" if ":" in host else host
        self.url = f"http://{shown}:{self.port}/"
        self._socket = sock
        config = uvicorn.Config(
            app, log_level="warning", access_log=False, lifespan="on", timeout_graceful_shutdown=5
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, name=f"cueshift view {self.url}", daemon=True
        )

    def _start(self) -> None:
        """Start the thread; return once the server listens, else stop and raise one line."""
        self._thread.start()
        deadline = time.monotonic() + START_SECONDS
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise CueshiftError(f"cueshift view: the server on {self.url} did not start")
            time.sleep(0.02)

    @property
    def running(self) -> bool:
        """Whether the server still serves (False once stopped)."""
        return self._thread.is_alive() and not self._server.should_exit

    def stop(self) -> None:
        """Stop serving, close the study database and free the port; again: nothing."""
        self._server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(STOP_SECONDS)
            if self._thread.is_alive():  # a connection that would not close: drop it
                self._server.force_exit = True
                self._thread.join(STOP_SECONDS)
        self._socket.close()
        if not self._server.started:  # never served: the app's lifespan did not close the database
            self.viewer.source.close()

    def wait(self) -> None:
        """Block until the server stops; Ctrl-C stops it and returns (``cueshift view`` does this)."""
        try:
            while self._thread.is_alive():
                self._thread.join(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            self.stop()

    def announce(self, stop_hint: str, out: TextIO = sys.stdout) -> None:
        """Print what ``cueshift view`` prints: the study, the images' root, the URL and ``stop_hint``."""
        source, root = self.viewer.source, self.viewer.root
        where = str(root) if root else "not found (placeholders shown; pass --images DIR)"
        print(f"cueshift view: {source.name} ({source.design}) from {self.database}, read-only", file=out)
        print(f"  aggregated in {source.build_seconds:.1f} s; images: {where}", file=out)
        if self.host not in LOCAL_HOSTS:
            print(f"  warning: listening on {self.host}: other machines can open these pages", file=out)
        if source.stale_results:
            print(f"  note: {source.stale_results}", file=out)
        print(f"  open {self.url}  ({stop_hint})", file=out, flush=True)

    def __enter__(self) -> ViewerServer:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "serving" if self.running else "stopped"
        return f"<ViewerServer {self.url} {state} {self.viewer.source.name} from {self.database}>"

    def _repr_html_(self) -> str:
        """A link in Jupyter (a stopped server: its URL as text)."""
        url, name = html.escape(self.url), html.escape(self.viewer.source.name)
        if not self.running:
            return f"cueshift view of <b>{name}</b>: stopped (was <code>{url}</code>)"
        return f'cueshift view of <b>{name}</b>: <a href="{url}" target="_blank">{url}</a>'


def start_viewer(
    database: Path, *, host: str = "127.0.0.1", port: int = 8000, images: Path | None = None,
    thumbs: Path = DEFAULT_CACHE,
) -> ViewerServer:  # fmt: skip
    """Open ``database`` read-only, aggregate it and serve it in a background thread.

    Checks, in order, each one line and nothing left running: ``images`` a folder, ``host:port``
    free (bound before aggregating), ``database`` a study database. Returns once it listens.

    Parameters
    ----------
    database
        The study database (never written).
    host, port
        Where to listen; the default binds this machine only; ``port`` 0: a free port. Another host
        is served as asked (the command warns: the pages show every image and answer of the study).
    images
        The image-set root holding the registered images (default: found from the study
        configuration stored in the database, see :mod:`cueshift.viewer.roots`).
    thumbs
        Folder of the thumbnail cache.
    """
    if images is not None and not images.is_dir():
        raise CueshiftError(f"--images {images}: no such folder")
    sock = listen(host, port)
    try:
        app = create_app(database, images=images, thumbs=thumbs)
    except BaseException:
        sock.close()
        raise
    server = ViewerServer(app, sock, database, host)
    server._start()
    return server

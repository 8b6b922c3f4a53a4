"""A threaded HTTP server on 127.0.0.1 for backend tests (subclasses set ``handler``)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar, TypeVar


class LocalServer:
    """Serves ``handler`` (which reaches this object as ``self.app``) on a free local port."""

    handler: ClassVar[type[BaseHTTPRequestHandler]]
    _httpd: ThreadingHTTPServer | None = None

    def start(self) -> str:
        """Start serving; return the OpenAI-style base URL."""
        handler = type("Handler", (self.handler,), {"app": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()


ServerT = TypeVar("ServerT", bound=LocalServer)


def serve_many(factory: Callable[..., ServerT]) -> Iterator[Callable[..., tuple[ServerT, str]]]:
    """The body of a fixture that starts servers on demand (``make(*args, **kwargs)``: the server
    and its URL) and stops them all afterwards."""
    started: list[ServerT] = []

    def make(*args: Any, **kwargs: Any) -> tuple[ServerT, str]:
        server = factory(*args, **kwargs)
        url = server.start()
        started.append(server)
        return server, url

    yield make
    for server in started:
        server.stop()

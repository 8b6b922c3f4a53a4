"""A small asyncio HTTP/1.1 client for the OpenAI-compatible backend (standard library only).

Just enough HTTP for JSON POSTs (and a few GETs: ``/version``, ``/v1/models``) to chat-completion
servers: keep-alive connection pools per
origin, TLS via :mod:`ssl`, ``Content-Length`` and chunked bodies, a hard per-request
deadline that closes the connection when it passes. No proxies, no compression, no
redirects. Transport failures raise :class:`TransportError` (or :class:`TimeoutError`);
HTTP error statuses are returned, not raised: the caller decides what to retry.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

#: Refuse response bodies beyond this size (a chat answer of 16 tokens is a few KiB).
MAX_BODY_BYTES = 16 * 1024 * 1024


class TransportError(Exception):
    """The connection failed, was dropped, or the peer did not speak HTTP/1.x."""


@dataclass(frozen=True)
class HttpResponse:
    """A complete response; header names are lower-case."""

    status: int
    headers: Mapping[str, str]
    body: bytes


@dataclass(frozen=True)
class Origin:
    """``scheme://host:port`` and the path prefix of a base URL."""

    scheme: str
    host: str
    port: int
    path: str

    @classmethod
    def parse(cls, url: str) -> Origin:
        """Split a base URL such as ``http://127.0.0.1:8000/v1``.

        Raises
        ------
        ValueError
            On a scheme other than http/https, a missing host, or embedded credentials.
        """
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https"):
            raise ValueError("must start with http:// or https://")
        if not parts.hostname:
            raise ValueError("has no host")
        if parts.username is not None or parts.password is not None:
            raise ValueError("must not carry credentials (use api_key_env)")
        if parts.fragment:
            raise ValueError("must not have a #fragment")
        port = parts.port or (443 if parts.scheme == "https" else 80)
        path = parts.path.rstrip("/")
        if parts.query:
            path = f"{path}?{parts.query}"
        return cls(parts.scheme, parts.hostname, port, path)

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        default = 443 if self.scheme == "https" else 80
        return host if self.port == default else f"{host}:{self.port}"

    def target(self, suffix: str) -> str:
        """Request target of ``suffix`` (e.g. ``/chat/completions``) under the base path."""
        path, _, query = self.path.partition("?")
        return f"{path}{suffix}" + (f"?{query}" if query else "")


class ConnectionPool:
    """Idle keep-alive connections to one origin; bound to the event loop that uses it."""

    def __init__(self, origin: Origin, *, tls_verify: bool = True, max_idle: int = 64) -> None:
        self.origin = origin
        self.max_idle = max_idle
        self._idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
        self._ssl: ssl.SSLContext | None = None
        if origin.scheme == "https":
            self._ssl = ssl.create_default_context()
            if not tls_verify:
                self._ssl.check_hostname = False
                self._ssl.verify_mode = ssl.CERT_NONE

    async def post(
        self, suffix: str, body: bytes, headers: Mapping[str, str], timeout: float
    ) -> HttpResponse:
        """POST ``body`` to the base path + ``suffix`` within ``timeout`` seconds in all.

        A reused keep-alive connection that turns out to be closed by the server is
        replaced by a fresh one once, inside the same deadline.

        Raises
        ------
        TimeoutError
            The deadline passed (connect, send or receive); the connection is closed.
        TransportError
            Connection refused, dropped, or not HTTP.
        """
        return await self.request("POST", self.origin.target(suffix), body, headers, timeout)

    async def get(self, target: str, headers: Mapping[str, str], timeout: float) -> HttpResponse:
        """GET ``target`` (a path from the origin's root, e.g. ``/version``); raises as :meth:`post`."""
        return await self.request("GET", target, None, headers, timeout)

    async def request(
        self, method: str, target: str, body: bytes | None, headers: Mapping[str, str], timeout: float
    ) -> HttpResponse:
        """One request to ``target`` within ``timeout`` seconds in all (see :meth:`post`)."""
        async with asyncio.timeout(timeout):
            conn = self._idle.pop() if self._idle else None
            if conn is not None:
                try:
                    return await self._exchange(conn, method, target, body, headers)
                except (TransportError, OSError):
                    pass  # stale keep-alive connection: one fresh try below
            return await self._exchange(await self._connect(), method, target, body, headers)

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        try:
            return await asyncio.open_connection(
                self.origin.host,
                self.origin.port,
                ssl=self._ssl,
                server_hostname=self.origin.host if self._ssl else None,
                limit=1 << 20,
            )
        except OSError as exc:
            raise TransportError(f"cannot connect ({type(exc).__name__})") from None

    async def _exchange(
        self,
        conn: tuple[asyncio.StreamReader, asyncio.StreamWriter],
        method: str,
        target: str,
        body: bytes | None,
        headers: Mapping[str, str],
    ) -> HttpResponse:
        reader, writer = conn
        keep = False
        try:
            head = [
                f"{method} {target} HTTP/1.1",
                f"Host: {self.origin.host_header}",
                *(
                    ["Content-Type: application/json", f"Content-Length: {len(body)}"]
                    if body is not None
                    else []
                ),
                "Accept: application/json",
                "Connection: keep-alive",
                *(f"{name}: {value}" for name, value in headers.items()),
            ]
            writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + (body or b""))
            await writer.drain()
            response, keep = await _read_response(reader)
            return response
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError) as exc:
            raise TransportError(f"connection dropped ({type(exc).__name__})") from None
        finally:
            if keep and len(self._idle) < self.max_idle:
                self._idle.append(conn)
            else:
                writer.close()  # also on cancellation (deadline): never reuse a half-read stream

    async def close(self) -> None:
        """Close every idle connection."""
        idle, self._idle = self._idle, []
        for _, writer in idle:
            writer.close()
        for _, writer in idle:
            with contextlib.suppress(OSError, ssl.SSLError):
                await writer.wait_closed()


async def _read_response(reader: asyncio.StreamReader) -> tuple[HttpResponse, bool]:
    """Read one response; returns it and whether the connection may be reused."""
    while True:
        line = await reader.readline()
        if not line:
            raise TransportError("connection closed before a response")
        version, _, rest = line.decode("latin-1").strip().partition(" ")
        if not version.startswith("HTTP/1.") or not rest[:3].isdigit():
            raise TransportError("not an HTTP/1.x response")
        status = int(rest[:3])
        headers: dict[str, str] = {}
        while True:
            raw = await reader.readline()
            if not raw:
                raise TransportError("connection closed inside the headers")
            if raw in (b"\r\n", b"\n"):
                break
            name, sep, value = raw.decode("latin-1").partition(":")
            if not sep:
                raise TransportError("malformed header line")
            headers[name.strip().lower()] = value.strip()
        if 100 <= status < 200:
            continue  # interim response (100 Continue): the real one follows
        break
    keep = version == "HTTP/1.1" and "close" not in headers.get("connection", "").lower()
    if status in (204, 304):
        return HttpResponse(status, headers, b""), keep
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = await _read_chunked(reader)
    elif "content-length" in headers:
        length = int(headers["content-length"])
        if length > MAX_BODY_BYTES:
            raise TransportError("response body too large")
        body = await reader.readexactly(length)
    else:
        body = await reader.read(MAX_BODY_BYTES + 1)
        keep = False
        if len(body) > MAX_BODY_BYTES:
            raise TransportError("response body too large")
    return HttpResponse(status, headers, body), keep


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    parts: list[bytes] = []
    total = 0
    while True:
        size_line = await reader.readline()
        if not size_line:
            raise TransportError("connection closed inside a chunked body")
        size = int(size_line.split(b";", 1)[0].strip() or b"x", 16)
        if size == 0:
            while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                pass  # trailers
            return b"".join(parts)
        total += size
        if total > MAX_BODY_BYTES:
            raise TransportError("response body too large")
        parts.append(await reader.readexactly(size))
        await reader.readexactly(2)  # CRLF after each chunk

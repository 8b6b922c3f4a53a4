"""A local Images API server that fails as real image services do (the chat mimic's pattern).

``POST /v1/images/generations`` (JSON) and ``POST /v1/images/edits`` (multipart, the base as
``image``) answer ``{"data": [{"b64_json": <PNG>}]}``: a small PNG whose colour hashes the prompt
(an edit: the prompt and the uploaded image), so every image shows which request made it.
``fault(prompt, attempt)`` picks what real services do instead (``attempt`` counts the requests
of the same prompt and uploaded image):

- ``"429"`` / ``"503"``: the status with ``Retry-After: <retry_after>``;
- ``"refuse"``: 400 ``{"error": {"code": "content_policy_violation", ...}}`` (OpenAI's refusal);
- ``"empty"``: 200 with ``"data": []``; ``"blank"``: 200 with ``b64_json = ""``;
- ``"garbage"``: 200 with ``b64_json`` that is not base64; ``"notimage"``: base64 of text;
- ``"truncated"``: 200 with a body cut inside the JSON; ``"slow"``: the answer after ``slow_s``;
- ``"url"``: 200 with ``data[0].url`` pointing at ``GET /files/<name>.png`` on this server;
- ``"401"``: an error that echoes the key.
"""

from __future__ import annotations

import base64
import email.parser
import email.policy
import hashlib
import io
import json
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

from PIL import Image

from tests.local_http import LocalServer, serve_many

Fault = Callable[[str, int], "str | None"]


def png_for(key: str) -> bytes:
    """An 8 x 8 PNG whose colour is a hash of ``key``."""
    r, g, b = hashlib.sha256(key.encode()).digest()[:3]
    out = io.BytesIO()
    Image.new("RGB", (8, 8), (r, g, b)).save(out, format="PNG")
    return out.getvalue()


class ImagesServer(LocalServer):
    """An Images API with fault switches; records every request (path, fields, headers, time)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.fault: Fault = lambda prompt, attempt: None
        self.attempts: Counter[str] = Counter()
        self.hits: list[tuple[float, str, str]] = []  # (time, path, fault or 'ok')
        self.fields: list[dict[str, Any]] = []
        self.images: list[bytes] = []  # the uploaded bases of edits
        self.auth: list[str] = []
        self.retry_after = "1"
        self.slow_s = 1.0
        self.files: dict[str, bytes] = {}


def _multipart(content_type: str, raw: bytes) -> tuple[dict[str, Any], bytes]:
    message = email.parser.BytesParser(policy=email.policy.default).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + raw
    )
    fields: dict[str, Any] = {}
    image = b""
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        assert isinstance(payload, bytes)
        if name == "image":
            image = payload
        else:
            fields[str(name)] = payload.decode()
    return fields, image


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    app: ImagesServer

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        name = self.path.rsplit("/", 1)[-1]
        data = self.app.files.get(name)
        if data is None:
            self._send(404, {"error": {"message": "no such file"}})
        else:
            self._send_raw(200, data, "image/png")

    def do_POST(self) -> None:  # noqa: N802
        app = self.app
        raw = self.rfile.read(int(self.headers["Content-Length"]))
        image = b""
        if self.path == "/v1/images/generations":
            fields = json.loads(raw)
        elif self.path == "/v1/images/edits":
            fields, image = _multipart(self.headers["Content-Type"], raw)
        else:
            self._send(404, {"error": {"message": f"no route {self.path}"}})
            return
        prompt = str(fields["prompt"])
        request_key = prompt + hashlib.sha256(image).hexdigest()  # one edit: its prompt and its base
        with app.lock:
            attempt = app.attempts[request_key]
            app.attempts[request_key] += 1
            fault = app.fault(prompt, attempt)
            app.hits.append((time.monotonic(), self.path, fault or "ok"))
            app.fields.append(fields)
            app.images.append(image)
            app.auth.append(self.headers.get("Authorization", ""))
        png = png_for(request_key)
        if fault in ("429", "503"):
            self._send(int(fault), {"error": {"message": "busy"}}, {"Retry-After": app.retry_after})
        elif fault == "refuse":
            error = {"code": "content_policy_violation", "type": "invalid_request_error"}
            message = "Your request was rejected as a result of our safety system."
            self._send(400, {"error": {**error, "message": message}})
        elif fault == "401":
            self._send(
                401, {"error": {"message": f"Incorrect API key provided: {self.headers['Authorization']}"}}
            )
        elif fault == "empty":
            self._send(200, {"created": 1, "data": []})
        elif fault == "blank":
            self._send(200, {"created": 1, "data": [{"b64_json": ""}]})
        elif fault == "garbage":
            self._send(200, {"created": 1, "data": [{"b64_json": "not base64 at all!"}]})
        elif fault == "notimage":
            self._send(200, {"created": 1, "data": [{"b64_json": base64.b64encode(b"hello").decode()}]})
        elif fault == "truncated":
            self._send_raw(200, b'{"created": 1, "data": [{"b64_json": "iVBO', "application/json")
        elif fault == "url":
            name = f"{hashlib.sha256(png).hexdigest()[:12]}.png"
            with app.lock:
                app.files[name] = png
            self._send(200, {"created": 1, "data": [{"url": f"http://{self.headers['Host']}/files/{name}"}]})
        else:
            if fault == "slow":
                time.sleep(app.slow_s)
            self._send(200, {"created": 1, "data": [{"b64_json": base64.b64encode(png).decode()}]})

    def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        self._send_raw(status, json.dumps(payload).encode(), "application/json", headers)

    def _send_raw(
        self, status: int, data: bytes, content_type: str, headers: dict[str, str] | None = None
    ) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeouts)


ImagesServer.handler = _Handler


def serve() -> Iterator[Callable[..., tuple[ImagesServer, str]]]:
    """The body of a ``servers`` fixture: start servers on demand, stop them afterwards."""
    yield from serve_many(ImagesServer)

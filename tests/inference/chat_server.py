"""A local chat-completions server that behaves as OpenAI-compatible servers (vLLM above all) really do.

A stdlib ``ThreadingHTTPServer`` on 127.0.0.1. Its answers are canned and deterministic:
``"(a) <tag>"`` or ``"(b) <tag>"`` where ``tag`` hashes the prompt, the seed and the decoded
image bytes, so every answer shows which judgment it belongs to. What it mimics:

- faults per request (``fault(tag, attempt)``): 429 with Retry-After, 500/503, 400, 401,
  slow answers, dropped and truncated connections, malformed JSON, no logprobs, and echoes
  of the credentials: raw, JSON-escaped (``\\/``), URL-encoded and partially masked;
- vLLM's answer constraints: ``honours`` names the request fields it applies
  (``{"structured_outputs"}`` for vLLM >= 0.12, ``{"guided_choice"}`` before); any other
  field of the body is ignored silently with HTTP 200 and listed in ``ignored``, as vLLM does;
- vLLM's ``--max-logprobs``: ``top_logprobs`` above ``max_logprobs`` is HTTP 400 with vLLM's
  message; ``logprobs`` (a function of the tag) are served when asked, ``jitter`` makes them
  (and, near a tie, the answer) differ between repeats of the same request;
- ``model`` and ``system_fingerprint`` in every answer, ``GET /version`` and ``GET /v1/models``
  (``models_status`` another status: 401 a refused key, 404 a server without the route).
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
import urllib.parse
from collections import Counter
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.local_http import LocalServer, serve_many

Fault = Callable[[str, int], "str | None"]
#: The fields a vLLM >= 0.12 server applies; the rest of the body is read as OpenAI's.
KNOWN_FIELDS = frozenset(
    {"model", "messages", "temperature", "max_tokens", "seed", "logprobs", "top_logprobs"}
)


def tag_of(prompt: str, seed: int, image_bytes: bytes) -> str:
    """The identity of one judgment as the server sees it."""
    digest = hashlib.sha256(image_bytes).hexdigest()
    return hashlib.sha256(f"{prompt}|{seed}|{digest}".encode()).hexdigest()[:10]


def letter_of(tag: str) -> str:
    return "a" if int(tag, 16) % 2 == 0 else "b"


def position(token: str, logprob: float, top: dict[str, float]) -> dict[str, Any]:
    """One ``logprobs.content`` entry."""
    return {
        "token": token,
        "logprob": logprob,
        "top_logprobs": [{"token": t, "logprob": lp} for t, lp in top.items()],
    }


def masked(secret: str) -> str:
    """How servers that mask keys show them: a prefix, stars, the last four characters."""
    return f"{secret[:10]}****{secret[-4:]}"


class ChatServer(LocalServer):
    """A chat-completions server with fault switches; records every request."""

    def __init__(self, *, answer_delay_s: float = 0.0) -> None:
        self.lock = threading.Lock()
        self.fault: Fault = lambda tag, attempt: None
        self.attempts: Counter[str] = Counter()
        self.hits: list[tuple[float, str, str]] = []  # (time, tag, fault or 'ok')
        self.bodies: list[dict[str, Any]] = []
        self.auth: list[str] = []
        self.answer_delay_s = answer_delay_s
        self.slow_s = 1.2
        self.retry_after = "1"
        self.logprobs: Callable[[str], list[dict[str, Any]]] | None = None
        self.honours: set[str] = {"structured_outputs"}  # vLLM >= 0.12
        self.ignored: Counter[str] = Counter()
        self.max_logprobs = 20
        self.jitter = 0.0  # logprob noise per repeat of the same request
        self.version: str | None = "0.12.0"
        self.fingerprint: str | None = "fp-test-1"
        self.gets: list[str] = []
        self.models_status = 200  # of GET /v1/models (404: a server without the route)

    @property
    def n_requests(self) -> int:
        return len(self.hits)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in two writes
    app: ChatServer

    def log_message(self, *args: Any) -> None:  # keep pytest output clean
        pass

    def do_GET(self) -> None:  # noqa: N802
        app = self.app
        with app.lock:
            app.gets.append(self.path)
        if self.path == "/version" and app.version is not None:
            self._send(200, {"version": app.version})
        elif self.path == "/v1/models" and app.models_status != 200:
            self._send(app.models_status, {"error": {"message": f"no ({self.headers.get('Authorization')})"}})
        elif self.path == "/v1/models":
            self._send(200, {"object": "list", "data": [{"id": "tiny-vlm", "owned_by": "vllm"}]})
        else:
            self._send(404, {"detail": "Not Found"})

    def do_POST(self) -> None:  # noqa: N802
        app = self.app
        raw = self.rfile.read(int(self.headers["Content-Length"]))
        if self.path != "/v1/chat/completions":
            self._send(404, {"error": {"message": f"no route {self.path}"}})
            return
        body = json.loads(raw)
        parts = body["messages"][-1]["content"]
        image_url = next(p["image_url"]["url"] for p in parts if p["type"] == "image_url")
        prompt = next(p["text"] for p in parts if p["type"] == "text")
        assert image_url.startswith("data:image/png;base64,")
        image_bytes = base64.b64decode(image_url.split(",", 1)[1])
        tag = tag_of(prompt, body["seed"], image_bytes)
        auth = self.headers.get("Authorization", "")
        with app.lock:
            attempt = app.attempts[tag]
            app.attempts[tag] += 1
            fault = app.fault(tag, attempt)
            app.hits.append((time.monotonic(), tag, fault or "ok"))
            app.bodies.append(body)
            app.auth.append(auth)
            app.ignored.update(k for k in body if k not in KNOWN_FIELDS and k not in app.honours)
        secret = auth.removeprefix("Bearer ")
        if body.get("logprobs") and body.get("top_logprobs", 0) > app.max_logprobs:
            message = (
                f"Requested sample logprobs of {body['top_logprobs']}, which is greater than "
                f"max allowed: {app.max_logprobs}"
            )
            self._send(400, {"object": "error", "message": message, "type": "BadRequestError", "code": 400})
            return
        if fault == "drop":
            self.close_connection = True
            return
        if fault == "truncate":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "500")
            self.end_headers()
            self.wfile.write(b'{"choices": [')
            self.wfile.flush()
            self.close_connection = True
            return
        if fault == "429":
            self._send(429, {"error": {"message": "slow down"}}, {"Retry-After": app.retry_after})
            return
        if fault in ("500", "503"):
            self._send(int(fault), {"error": {"message": f"internal error; request had credentials {auth}"}})
            return
        if fault == "400":
            self._send(400, {"error": {"message": f"this image cannot be decoded (key {masked(secret)})"}})
            return
        if fault == "401":
            self._send(401, {"error": {"message": f"Incorrect API key provided: {auth}"}})
            return
        if fault == "401-json":  # a JSON encoder that escapes "/" (PHP, some Java ones)
            escaped = json.dumps(f"Incorrect API key provided: {secret}").replace("/", "\\/")
            self._send_raw(401, f'{{"error": {{"message": {escaped}}}}}'.encode())
            return
        if fault == "malformed":
            self._send_raw(200, b'{"choices": [{"message": {"content": "(a)"')
            return
        if fault == "slow":
            time.sleep(app.slow_s)
        elif app.answer_delay_s:
            time.sleep(app.answer_delay_s)
        content = self._content(body, tag)
        if fault == "echo":
            content += f" your credentials were {auth}"
        elif fault == "echo-json":
            content += " key " + json.dumps(secret).replace("/", "\\/")
        elif fault == "echo-url":
            content += f" see https://x.test/?key={urllib.parse.quote(secret, safe='')}"
        elif fault == "echo-masked":
            content += f" (key {masked(secret)})"
        choice: dict[str, Any] = {"index": 0, "message": {"role": "assistant", "content": content}}
        choice["finish_reason"] = "stop"
        if app.logprobs is not None and body.get("logprobs") and fault != "nologprobs":
            choice["logprobs"] = {"content": self._logprobs(tag, attempt)}
        answer: dict[str, Any] = {"id": "cmpl-1", "object": "chat.completion", "model": body["model"]}
        if app.fingerprint is not None:
            answer["system_fingerprint"] = app.fingerprint
        answer["choices"] = [choice]
        self._send(200, answer)

    def _content(self, body: dict[str, Any], tag: str) -> str:
        """The answer text; constrained to the choices when the server applies the constraint."""
        app = self.app
        choices = None
        if "structured_outputs" in app.honours and isinstance(body.get("structured_outputs"), dict):
            choices = body["structured_outputs"].get("choice")
        if "guided_choice" in app.honours and isinstance(body.get("guided_choice"), list):
            choices = body["guided_choice"]
        if choices:
            return str(choices[0] if letter_of(tag) == "a" else choices[-1])
        return f"({letter_of(tag)}) {tag}"

    def _logprobs(self, tag: str, attempt: int) -> list[dict[str, Any]]:
        app = self.app
        assert app.logprobs is not None
        content = app.logprobs(tag)
        if app.jitter and attempt:
            shift = app.jitter * attempt
            content = [
                {
                    **p,
                    "logprob": p["logprob"] - shift,
                    "top_logprobs": [
                        {**alt, "logprob": alt["logprob"] - shift * (k + 1)}
                        for k, alt in enumerate(p["top_logprobs"])
                    ],
                }
                for p in content
            ]
        return content

    def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        self._send_raw(status, json.dumps(payload).encode(), headers)

    def _send_raw(self, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (slow answers)


ChatServer.handler = _Handler  # the server answers with this handler


def serve() -> Iterator[Callable[..., tuple[ChatServer, str]]]:
    """The body of a ``servers`` fixture: start servers on demand, stop them afterwards."""
    yield from serve_many(ChatServer)

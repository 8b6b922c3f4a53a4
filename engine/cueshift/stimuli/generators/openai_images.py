"""An OpenAI-compatible Images API: ``/images/generations`` for bases, ``/images/edits`` for variations.

One :meth:`OpenAIImagesGenerator.generate` call is one image: a JSON POST (a base) or a multipart
POST with the base as ``image`` (an edit), the answer's ``data[0].b64_json`` (or ``data[0].url``,
downloaded) converted to PNG. What real services answer, and what becomes of it:

* 429, 408, 409, 425, 5xx, timeouts, dropped connections, a body that is not JSON: tried again
  up to ``max_retries`` times, after the backoff of
  :mod:`cueshift.inference.backends.openai_retry` raised to an honoured ``Retry-After``
  (capped at ``retry_after_max_s``); then ``"failed"``, the last error in the message;
* 400 with an ``error.code`` of :data:`REFUSAL_CODES` (a content filter): ``"refused"``, not retried;
* any other 4xx, an empty ``data`` list, a payload that is not base64 or not an image: ``"failed"``.

Messages are one line and never hold the API key (:func:`~cueshift.inference.backends.openai_redact.redact`).
"""

from __future__ import annotations

import base64
import binascii
import http.client
import io
import json
import os
import random
import ssl
import time
import urllib.request
from collections.abc import Mapping
from typing import Any

from cueshift.errors import ConfigError
from cueshift.inference.backends.openai_http import HttpResponse, TransportError
from cueshift.inference.backends.openai_redact import redact
from cueshift.inference.backends.openai_retry import RetryableFailure, backoff_delay, retry_after, retryable
from cueshift.stimuli.generators.base import ImageRequest, ImageResult
from cueshift.stimuli.generators.openai_images_settings import REFUSAL_CODES, parse_settings


def one_line(text: str, limit: int = 300) -> str:
    """``text`` on one line, at most ``limit`` characters.

    >>> one_line("a\\n  b")
    'a b'
    """
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def multipart(fields: Mapping[str, str], image: bytes) -> tuple[bytes, str]:
    """A ``multipart/form-data`` body of ``fields`` and the PNG ``image``; the body and its content type."""
    boundary = f"cueshift-{random.getrandbits(64):016x}"
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
        for name, value in fields.items()
    ]
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="image"; filename="base.png"\r\n'
        "Content-Type: image/png\r\n\r\n"
    )
    body = b"".join([*parts, head.encode(), image, f"\r\n--{boundary}--\r\n".encode()])
    return body, f"multipart/form-data; boundary={boundary}"


def _as_png(data: bytes) -> bytes:
    """``data`` as PNG bytes (PNG kept as it is; JPEG/WebP re-encoded); ValueError if no image."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            if image.format == "PNG":
                return data
            out = io.BytesIO()
            image.save(out, format="PNG")
            return out.getvalue()
    except (OSError, UnidentifiedImageError, SyntaxError) as exc:
        raise ValueError("the image payload is not an image") from exc


class OpenAIImagesGenerator:
    """``generator = "openai-images"``; built as ``OpenAIImagesGenerator(model, settings)``.

    Raises
    ------
    ConfigError
        Bad settings, or ``api_key_env`` naming a variable that is not set.
    """

    name = "openai-images"

    def __init__(self, model: str, settings: Mapping[str, object]) -> None:
        self.model = model
        self.settings = parse_settings(model, settings)
        self.origin = self.settings.origin()
        self._key: str | None = None
        if self.settings.api_key_env is not None:
            self._key = os.environ.get(self.settings.api_key_env)
            if not self._key:
                raise ConfigError(
                    f"openai-images: environment variable {self.settings.api_key_env} is not set"
                )
        self._backoff = self.settings.backoff()
        self._rng = random.Random()

    def generate(self, request: ImageRequest) -> ImageResult:
        """Make one image (see the module notes for the outcome of each answer)."""
        started = time.perf_counter()
        last, wait_hint = "", None
        attempts = self.settings.max_retries + 1
        for attempt in range(attempts):
            if attempt:
                time.sleep(backoff_delay(self._backoff, attempt - 1, wait_hint, self._rng))
            wait_hint = None
            try:
                response = self._post(request)
                if response.status == 200:
                    return self._image(response, started)
            except (TimeoutError, TransportError, RetryableFailure) as exc:
                timed_out = isinstance(exc, TimeoutError)
                last = f"timed out after {self.settings.timeout_s:g} s" if timed_out else str(exc)
                continue
            code, text = _error_of(response)
            message = one_line(redact(f"HTTP {response.status}: {text}", self._key))
            if response.status == 400 and code in REFUSAL_CODES:
                return ImageResult("refused", None, f"{code}: {message}", time.perf_counter() - started)
            if not retryable(response.status):
                return ImageResult("failed", None, message, time.perf_counter() - started)
            last, wait_hint = message, retry_after(response)
        gave_up = one_line(redact(f"{last} (gave up after {attempts} attempts)", self._key))
        return ImageResult("failed", None, gave_up, time.perf_counter() - started)

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._key}"} if self._key else {}

    def _post(self, request: ImageRequest) -> HttpResponse:
        size = self.settings.size or f"{request.width}x{request.height}"
        fields: dict[str, Any] = {"model": self.model, "prompt": request.prompt, "n": 1, "size": size}
        for key in ("quality", "response_format"):
            if getattr(self.settings, key) is not None:
                fields[key] = getattr(self.settings, key)
        if self.settings.send_seed:
            fields["seed"] = request.seed
        if request.stage == "base":
            body, content_type, path = json.dumps(fields).encode(), "application/json", "/images/generations"
        else:
            if request.parent_png is None:
                raise TransportError("an edit needs its base image")
            body, content_type = multipart({k: str(v) for k, v in fields.items()}, request.parent_png)
            path = "/images/edits"
        return self._send("POST", self.origin.target(path), body, {"Content-Type": content_type})

    def _send(self, method: str, target: str, body: bytes | None, headers: dict[str, str]) -> HttpResponse:
        origin, timeout = self.origin, self.settings.timeout_s
        connection: http.client.HTTPConnection
        if origin.scheme == "https":
            context = ssl.create_default_context()
            if not self.settings.tls_verify:
                context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
            connection = http.client.HTTPSConnection(
                origin.host, origin.port, timeout=timeout, context=context
            )
        else:
            connection = http.client.HTTPConnection(origin.host, origin.port, timeout=timeout)
        try:
            connection.request(method, target, body=body, headers={**headers, **self._headers()})
            answer = connection.getresponse()
            data = answer.read()
            return HttpResponse(answer.status, {k.lower(): v for k, v in answer.getheaders()}, data)
        except TimeoutError:
            raise
        except (OSError, http.client.HTTPException) as exc:
            raise TransportError(f"connection failed ({type(exc).__name__})") from None
        finally:
            connection.close()

    def _image(self, response: HttpResponse, started: float) -> ImageResult:
        """The image of a 200 answer; a body that is not JSON is worth another attempt."""
        try:
            answer = json.loads(response.body)
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise RetryableFailure("the answer is not JSON (truncated?)") from None
        data = answer.get("data") if isinstance(answer, dict) else None
        item = data[0] if isinstance(data, list) and data else None
        try:
            if not isinstance(item, dict) or not (item.get("b64_json") or item.get("url")):
                raise ValueError("empty image payload (no data[0].b64_json or data[0].url)")
            if item.get("b64_json"):
                try:
                    raw = base64.b64decode(str(item["b64_json"]), validate=True)
                except (binascii.Error, ValueError):
                    raise ValueError("malformed image payload: data[0].b64_json is not base64") from None
            else:
                raw = self._download(str(item["url"]))
            png = _as_png(raw)
        except ValueError as exc:
            return ImageResult("failed", None, one_line(str(exc)), time.perf_counter() - started)
        return ImageResult("ok", png, "", time.perf_counter() - started)

    def _download(self, url: str) -> bytes:
        """The image at ``url`` (no key sent: a signed URL carries its own access)."""
        try:
            with urllib.request.urlopen(url, timeout=self.settings.timeout_s) as answer:  # noqa: S310
                data: bytes = answer.read()
                return data
        except TimeoutError:
            raise
        except (OSError, ValueError) as exc:
            raise TransportError(f"cannot download data[0].url ({type(exc).__name__})") from None


def _error_of(response: HttpResponse) -> tuple[str | None, str]:
    """The ``error.code`` and message of an error answer (the raw body when it is not JSON)."""
    try:
        answer = json.loads(response.body)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None, response.body[:300].decode("utf-8", "replace") or "(no body)"
    error = answer.get("error") if isinstance(answer, dict) else None
    if isinstance(error, dict):
        code = error.get("code") or error.get("type")
        return (str(code) if code else None), str(error.get("message") or code or "(no message)")
    return None, json.dumps(answer)[:300]


__all__ = ["OpenAIImagesGenerator", "multipart", "one_line"]

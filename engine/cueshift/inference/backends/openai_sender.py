"""One request of the OpenAI-compatible backend, sent to the end: retries, failover, what fails it.

:class:`RequestSender` (inherited by :class:`~cueshift.inference.backends.openai_client.ChatClient`)
sends one body with retries and failover (:mod:`.openai_retry`, :mod:`.openai_router`), lowers
``top_logprobs`` to the server's stated limit, and ends it as an :class:`Outcome`: answered, or
given up with its attempts and last error; the statuses in :data:`FATAL_STATUSES` stop the run
(see :mod:`.openai_client` for which failures do what).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cueshift.errors import CueshiftError
from cueshift.inference.backends.openai_completion import Completion, parse_completion
from cueshift.inference.backends.openai_http import HttpResponse, TransportError
from cueshift.inference.backends.openai_retry import RetryableFailure, backoff_delay, retry_after, retryable
from cueshift.inference.backends.openai_router import Endpoint, Router
from cueshift.inference.backends.openai_server_info import ServerInfo
from cueshift.inference.backends.openai_settings import OpenAISettings

log = logging.getLogger("cueshift.inference.backends.openai_compat")

#: Statuses after which no request can succeed: credentials, URL or model name are wrong.
FATAL_STATUSES = frozenset({401, 403, 404, 405, 407})
#: vLLM: "Requested sample logprobs of 25, which is greater than max allowed: 20".
_LOGPROB_LIMIT = re.compile(r"logprobs?\b.*?max(?:imum)? allowed:?\s*(\d+)", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class Outcome:
    """How one request ended: ``completion`` when answered, else ``error`` (one line, redacted)."""

    completion: Completion | None
    latency_ms: float
    attempts: int
    error: str | None = None


class _Rejected(Exception):
    """A 4xx answer specific to this request: not retried."""

    def __init__(self, what: str, status: int) -> None:
        super().__init__(what)
        self.what = what
        self.status = status


class RequestSender:
    """Sending one request (a mixin of :class:`~cueshift.inference.backends.openai_client.ChatClient`,
    which sets the attributes declared here)."""

    settings: OpenAISettings
    headers: dict[str, str]
    redact: Callable[[str], str]
    info: ServerInfo
    top_logprobs: int
    _rng: random.Random
    _router: Router | None

    @property
    def router(self) -> Router:
        """The endpoints (created on the loop that uses their connections)."""
        if self._router is None:
            s = self.settings
            self._router = Router(
                [Endpoint(url, tls_verify=s.tls_verify) for url in s.base_urls], s.down_cooldown_s
            )
        return self._router

    async def send(self, body: dict[str, Any], *, text_only: bool) -> tuple[Outcome, bytes]:
        """Send ``body`` with retries and failover; returns the outcome and the bytes last sent."""
        s = self.settings
        payload, limit = self._payload(body)
        endpoint: Endpoint | None = None
        attempt = 0
        while True:
            endpoint = self.router.choose(avoid=endpoint)
            endpoint.in_flight += 1
            started = time.perf_counter()
            try:
                completion = await self._attempt(endpoint, payload, text_only=text_only)
            except _Rejected as rejected:
                lowered = self._lower_logprobs(rejected, limit)
                if lowered:
                    payload, limit = self._payload(body)
                    continue
                error = f"{endpoint.url}: {rejected.what} (not retried)"
                return Outcome(None, 0.0, attempt + 1, error), payload
            except RetryableFailure as failure:
                if attempt >= s.max_retries:
                    error = f"{endpoint.url}: {failure.what} (gave up after {attempt + 1} attempts)"
                    return Outcome(None, 0.0, attempt + 1, error), payload
                delay = backoff_delay(s, attempt, failure.retry_after, self._rng)
                log.info(
                    "%s: %s; retry %d/%d in %.2fs",
                    endpoint.url,
                    failure.what,
                    attempt + 1,
                    s.max_retries,
                    delay,
                )
                attempt += 1
                await asyncio.sleep(delay)
                continue
            finally:
                endpoint.in_flight -= 1
            latency = (time.perf_counter() - started) * 1000.0
            return Outcome(completion, latency, attempt + 1), payload

    def _payload(self, body: dict[str, Any]) -> tuple[bytes, int | None]:
        """The bytes of ``body`` with ``top_logprobs`` within the server's known limit."""
        if "top_logprobs" in body and body["top_logprobs"] > self.top_logprobs:
            body = dict(body)
            if self.top_logprobs < 1:
                body.pop("top_logprobs")
                body.pop("logprobs", None)
            else:
                body["top_logprobs"] = self.top_logprobs
        limit = body.get("top_logprobs")
        return json.dumps(body).encode("utf-8"), limit if isinstance(limit, int) else None

    def _lower_logprobs(self, rejected: _Rejected, asked: int | None) -> bool:
        """Whether ``rejected`` names a lower logprob limit than ``asked``; if so adopt it."""
        match = _LOGPROB_LIMIT.search(rejected.what) if rejected.status == 400 else None
        if match is None or asked is None or int(match.group(1)) >= asked:
            return False
        self.top_logprobs = int(match.group(1))
        self.info.top_logprobs_used = self.top_logprobs
        log.warning("the server allows at most %d top_logprobs; asking for that many", self.top_logprobs)
        return True

    async def _attempt(self, endpoint: Endpoint, payload: bytes, *, text_only: bool) -> Completion:
        """One POST; raises :class:`RetryableFailure`, :class:`_Rejected` or (fatal) CueshiftError."""
        router = self.router
        try:
            response = await endpoint.pool.post(
                "/chat/completions", payload, self.headers, self.settings.timeout_s
            )
        except TimeoutError:
            router.failed(endpoint)
            raise RetryableFailure(f"timed out after {self.settings.timeout_s:g}s") from None
        except TransportError as exc:
            router.failed(endpoint)
            raise RetryableFailure(self.redact(str(exc))) from None
        if response.status != 200:
            what = f"HTTP {response.status}: {self.excerpt(response)}"
            if response.status >= 500:
                router.failed(endpoint)
            if retryable(response.status):
                raise RetryableFailure(what, retry_after(response))
            if response.status in FATAL_STATUSES:
                raise CueshiftError(
                    f"openai backend: {endpoint.url}: {what} (not retried; this batch was not stored)"
                )
            raise _Rejected(what, response.status)
        try:
            completion = parse_completion(response.body, self.settings, text_only=text_only)
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise RetryableFailure(f"malformed response body ({type(exc).__name__})") from None
        except CueshiftError as exc:
            raise CueshiftError(f"openai backend: {endpoint.url}: {exc}") from None
        router.succeeded(endpoint)
        return dataclasses.replace(
            completion,
            text=self.redact(completion.text),
            served_model=None if completion.served_model is None else self.redact(completion.served_model),
            fingerprint=None if completion.fingerprint is None else self.redact(completion.fingerprint),
        )

    def excerpt(self, response: HttpResponse, limit: int = 200) -> str:
        """The start of a response body on one line, redacted (redacted before it is cut)."""
        text = self.redact(" ".join(response.body.decode("utf-8", errors="replace").split()))
        return text[:limit] + ("…" if len(text) > limit else "") if text else "<empty body>"


__all__ = ["FATAL_STATUSES", "Outcome", "RequestSender"]

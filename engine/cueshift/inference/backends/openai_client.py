"""The asynchronous core of the OpenAI-compatible backend: requests in, one outcome per request out.

Each request is sent with retries and failover (:mod:`.openai_retry`, :mod:`.openai_router`)
and ends as an :class:`Outcome`: answered, or given up with its attempts and last error.

What stops everything (a :class:`~cueshift.errors.CueshiftError`, the batch is not stored)
    401, 403, 404, 405 and 407 answers (credentials, URL or model name are wrong: every
    request would fail the same way), score mode without logprobs, and a failed health
    check.
What fails one request (recorded by the runner, retried by a later run)
    Retries exhausted (429, 5xx, timeouts, dropped connections, malformed bodies), and other
    4xx answers (400, 413, 422...: the server refuses this request), which are not retried.
Health check
    After ``health_check_after`` requests in a row have failed, the last failing request is
    sent again with its images replaced by a plain grey one (same settings, prompt and
    fields). If that is answered, the server and the settings work and the failures are
    specific to those requests (a corrupt image, a poison prompt): the run goes on. If not,
    the server is down or the settings are wrong, and the run stops with the error.
The server's logprob limit
    vLLM refuses ``top_logprobs`` above its ``--max-logprobs`` (default 20) with HTTP 400
    "... greater than max allowed: N". The client then asks for N from there on and sends
    the request again (not counted as an attempt); N = 0 drops logprobs.
Secrets
    Every text that comes from the server (error bodies, answers, model names) passes the
    backend's redaction before it goes anywhere.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from cueshift.errors import CueshiftError
from cueshift.inference.backends.openai_consistency import Reservoir, Sample
from cueshift.inference.backends.openai_http import HttpResponse, TransportError
from cueshift.inference.backends.openai_messages import Completion, health_check_body, parse_completion
from cueshift.inference.backends.openai_retry import RetryableFailure, backoff_delay, retry_after, retryable
from cueshift.inference.backends.openai_router import Endpoint, Router
from cueshift.inference.backends.openai_server_info import ServerInfo, models_of, version_of
from cueshift.inference.backends.openai_settings import OpenAISettings

log = logging.getLogger("cueshift.inference.backends.openai_compat")

#: Statuses after which no request can succeed: credentials, URL or model name are wrong.
FATAL_STATUSES = frozenset({401, 403, 404, 405, 407})
#: vLLM: "Requested sample logprobs of 25, which is greater than max allowed: 20".
_LOGPROB_LIMIT = re.compile(r"logprobs?\b.*?max(?:imum)? allowed:?\s*(\d+)", re.IGNORECASE | re.DOTALL)

BodyMaker = Callable[[], dict[str, Any]]


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


class ChatClient:
    """Sends chat completions for one backend; lives on the backend's event loop.

    Parameters
    ----------
    settings
        The model's settings.
    headers
        Headers of every request (the credentials).
    redact
        The backend's redaction (see :mod:`.openai_redact`).
    """

    def __init__(
        self, settings: OpenAISettings, headers: dict[str, str], redact: Callable[[str], str], *, seed: int
    ) -> None:
        self.settings = settings
        self.headers = headers
        self.redact = redact
        self.info = ServerInfo()
        self.reservoir = Reservoir(settings.consistency_probe, seed)
        self.top_logprobs = settings.top_logprobs
        self._rng = random.Random()  # jitter only; not the global generator
        self._router: Router | None = None
        self._streak = 0
        self._health: asyncio.Lock | None = None

    @property
    def router(self) -> Router:
        """The endpoints (created on the loop that uses their connections)."""
        if self._router is None:
            s = self.settings
            self._router = Router(
                [Endpoint(url, tls_verify=s.tls_verify) for url in s.base_urls], s.down_cooldown_s
            )
        return self._router

    async def answer_all(self, makers: Sequence[BodyMaker], *, text_only: bool) -> list[Outcome]:
        """One request per body maker, concurrently within ``concurrency``; outcomes in order."""
        gate = asyncio.Semaphore(self.settings.concurrency)
        tasks = [asyncio.create_task(self._one(make, gate, text_only=text_only)) for make in makers]
        try:
            return list(await asyncio.gather(*tasks))
        except BaseException:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise

    async def _one(self, make_body: BodyMaker, gate: asyncio.Semaphore, *, text_only: bool) -> Outcome:
        async with gate:
            body = make_body()
            outcome, payload = await self.send(body, text_only=text_only)
            if outcome.completion is None:
                self._streak += 1
                if self._streak >= self.settings.health_check_after:
                    await self._check_health(body, outcome, text_only=text_only)
                return outcome
            self._streak = 0
            self.info.observe(outcome.completion, wants_logprobs=bool(body.get("logprobs")))
            self.reservoir.offer(Sample(payload, outcome.completion, text_only))
            return outcome

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

    async def _check_health(self, body: dict[str, Any], failed: Outcome, *, text_only: bool) -> None:
        """Stop the run unless the server answers ``body`` with its images replaced (module notes)."""
        if self._health is None:
            self._health = asyncio.Lock()
        async with self._health:
            if self._streak < self.settings.health_check_after:
                return  # another request checked while this one waited
            outcome, _ = await self.send(health_check_body(body), text_only=text_only)
            if outcome.completion is None:
                raise CueshiftError(
                    f"openai backend: {self._streak} requests in a row failed (last: {failed.error}) "
                    f"and the health check failed too ({outcome.error}); the server is down or the "
                    "settings are wrong; this batch was not stored"
                )
            log.warning(
                "%d requests in a row failed (last: %s) but the server answers; going on",
                self._streak,
                failed.error,
            )
            self._streak = 0

    def excerpt(self, response: HttpResponse, limit: int = 200) -> str:
        """The start of a response body on one line, redacted (redacted before it is cut)."""
        text = self.redact(" ".join(response.body.decode("utf-8", errors="replace").split()))
        return text[:limit] + ("…" if len(text) > limit else "") if text else "<empty body>"

    async def describe_servers(self) -> None:
        """Ask every endpoint for its version (``GET /version``, vLLM) and models (best effort)."""
        for endpoint in self.router.endpoints:
            found: dict[str, Any] = {}
            for target, read, key in (
                ("/version", version_of, "version"),
                (endpoint.pool.origin.target("/models"), models_of, "models"),
            ):
                try:
                    response = await endpoint.pool.get(
                        target, self.headers, min(5.0, self.settings.timeout_s)
                    )
                except (TimeoutError, TransportError):
                    continue
                value = read(response.body) if response.status == 200 else None
                if value is not None:
                    found[key] = _redact_json(value, self.redact)
            self.info.endpoints[endpoint.url] = found

    async def repeat(self, samples: Sequence[Sample]) -> list[Completion | None]:
        """Send the sampled requests again, byte for byte; ``None`` where one got no answer."""
        answers: list[Completion | None] = []
        for sample in samples:
            body = json.loads(sample.body)
            outcome, _ = await self.send(body, text_only=sample.text_only)
            answers.append(outcome.completion)
        return answers

    async def close(self) -> None:
        if self._router is not None:
            await self._router.close()


def _redact_json(value: Any, redact: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        return [_redact_json(v, redact) for v in value]
    return value


__all__ = ["FATAL_STATUSES", "BodyMaker", "ChatClient", "Outcome"]

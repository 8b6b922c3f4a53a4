"""The asynchronous core of the OpenAI-compatible backend: requests in, one outcome per request out.

Each request is sent with retries and failover (:mod:`.openai_retry`, :mod:`.openai_router`)
and ends as an :class:`~.openai_sender.Outcome`: answered, or given up with its attempts and
last error (one request's sending is :class:`~.openai_sender.RequestSender`).

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
import json
import logging
import random
from collections.abc import Callable, Sequence
from typing import Any

from cueshift.errors import CueshiftError
from cueshift.inference.backends.openai_completion import Completion
from cueshift.inference.backends.openai_consistency import Reservoir, Sample
from cueshift.inference.backends.openai_http import TransportError
from cueshift.inference.backends.openai_messages import health_check_body
from cueshift.inference.backends.openai_router import Router
from cueshift.inference.backends.openai_sender import Outcome, RequestSender
from cueshift.inference.backends.openai_server_info import ServerInfo, models_of, version_of
from cueshift.inference.backends.openai_settings import OpenAISettings

log = logging.getLogger("cueshift.inference.backends.openai_compat")

BodyMaker = Callable[[], dict[str, Any]]


class ChatClient(RequestSender):
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


__all__ = ["BodyMaker", "ChatClient"]

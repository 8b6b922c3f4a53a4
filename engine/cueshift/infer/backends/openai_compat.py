"""OpenAI-compatible chat-completion servers as judges (vLLM, Ollama, llama.cpp server, hosted APIs).

Each judgment is one ``POST {base_url}/chat/completions`` with the image as a base64
data URL and the rendered prompt, ``temperature`` 0.2, ``max_tokens`` 16 and the
judgment's ``seed`` (the paper's generate protocol). Requests run concurrently on an
asyncio loop owned by the backend (a background thread, so :meth:`OpenAIBackend.judge`
stays synchronous and also works inside Jupyter), bounded by ``concurrency``.

Robustness
    429, 408, 425 and 5xx answers, timeouts, refused or dropped connections and
    malformed bodies are retried up to ``max_retries`` times with exponential backoff
    and jitter (``Retry-After`` is honoured up to ``retry_after_max_s``). Other 4xx
    answers (401, 404, 400...) are not retried. When a judgment exhausts its retries a
    :class:`~cueshift.errors.CueshiftError` names the base URL and the last status; the
    batch is not returned, the runner stops, and the unanswered judgments are planned
    again on the next run.
Load spreading
    Several ``base_urls`` (replicas serving the same model) share the load: each attempt
    goes to the endpoint with the fewest requests in flight (ties in turn). An endpoint
    that fails at the transport level or answers 5xx is avoided for ``down_cooldown_s``,
    and a retry prefers an endpoint other than the one that just failed (failover).
Secrets
    The API key is read from the environment variable named by ``api_key_env``; only the
    name is part of the settings (and so of the ``model`` table). The key itself is sent
    in one header and scrubbed from every error message, log line and answer text.
Score information (``logprobs``)
    When the server returns ``logprobs`` with ``top_logprobs``, the answer's letter
    probabilities are read from the first answer token; see :func:`letter_probabilities`.
    In generate mode they are stored next to the sampled text (``p_favorable`` /
    ``p_neither``, NULL where not served). ``mode = "score"`` is the deterministic score
    mode: temperature 0, :attr:`OpenAIBackend.deterministic` True (the runner plans seed 0
    only, one request per ordering), and a server that returns no logprobs is an error.
Further designs (:meth:`OpenAIBackend.judge_pairs`, :meth:`OpenAIBackend.rate`)
    A pairwise trial is one request whose user message holds the left image, the right
    image (two ``image_url`` parts, in that order) and the design's question; a rating is
    one request with one image and the design's rating prompt. Both use the same retries,
    load spreading and key scrubbing, send the row's ``seed`` and the generate-mode
    temperature (0 in score mode: the greedy answer), and ask for no logprobs; the raw text
    goes to the design's strict parser.

Modules: :mod:`.openai_settings` (settings), :mod:`.openai_messages` (request bodies and
answers), :mod:`.openai_logprobs` (letter probabilities), :mod:`.openai_router` (load
spreading), :mod:`.openai_retry` (what is retried, backoff), :mod:`.openai_http` (HTTP/1.1
connections), :mod:`.loop_thread` (the event loop).
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import polars as pl

from cueshift.errors import ConfigError, CueshiftError
from cueshift.infer.backends.base import (
    Backend,
    BackendAnswers,
    JudgmentRequest,
    StudyContext,
    pairwise_prompts,
    rating_prompts,
)
from cueshift.infer.backends.loop_thread import LoopThread
from cueshift.infer.backends.openai_http import TransportError
from cueshift.infer.backends.openai_logprobs import LetterProbabilities
from cueshift.infer.backends.openai_messages import DataUrls, chat_body, parse_completion
from cueshift.infer.backends.openai_retry import RetryableFailure, backoff_delay, retry_after, retryable
from cueshift.infer.backends.openai_router import Endpoint, Router
from cueshift.infer.backends.openai_settings import parse_settings
from cueshift.study.config import ModelConfig

log = logging.getLogger(__name__)

REDACTED = "[redacted]"

BodyMaker = Callable[[], dict[str, Any]]


@dataclass(frozen=True)
class _Answer:
    text: str
    latency_ms: float
    letters: LetterProbabilities | None


class OpenAIBackend(Backend):
    """Generate mode against OpenAI-compatible servers, with score information when served.

    Parameters
    ----------
    model
        The study's model entry: ``checkpoint`` is the served model name and ``settings``
        validate as :class:`~cueshift.infer.backends.openai_settings.OpenAISettings`.
    context
        Images and scenarios of the study.

    Raises
    ------
    ConfigError
        Invalid settings, no checkpoint, or ``api_key_env`` naming an unset variable.
    """

    name: ClassVar[str] = "openai"
    #: per instance: see :attr:`deterministic` (what the runner reads)
    scores: ClassVar[bool] = False

    def __init__(self, model: ModelConfig, context: StudyContext) -> None:
        super().__init__(model, context)
        self.settings = parse_settings(model)
        if not model.checkpoint:
            raise ConfigError(f"model {model.model_id!r}: checkpoint must name the served model")
        self._key = self._read_key()
        self._headers: dict[str, str] = {}
        if self._key is not None:
            value = (
                f"Bearer {self._key}"
                if self.settings.api_key_header.lower() == "authorization"
                else self._key
            )
            self._headers[self.settings.api_key_header] = value
        self._data_url = DataUrls(max(32, 2 * self.settings.concurrency))
        self._loop = LoopThread("cueshift-openai")
        self._router: Router | None = None
        self._rng = random.Random()  # jitter only; not the global generator

    @property
    def deterministic(self) -> bool:
        """True in score mode: the answer does not depend on the seed, so plan seed 0 only."""
        return self.settings.mode == "score"

    # ---- secrets

    def _read_key(self) -> str | None:
        name = self.settings.api_key_env
        if name is None:
            return None
        key = os.environ.get(name)
        if not key:
            raise ConfigError(
                f"model {self.model.model_id!r}: environment variable {name} (api_key_env) is not set"
            )
        if any(c in key for c in "\r\n\0") or key != key.strip():
            raise ConfigError(
                f"model {self.model.model_id!r}: the value of {name} has whitespace or control characters"
            )
        return key

    def scrub(self, text: str) -> str:
        """``text`` with the API key replaced by ``[redacted]``."""
        return text.replace(self._key, REDACTED) if self._key else text

    # ---- sync surface

    def judge(self, batch: pl.DataFrame) -> BackendAnswers:
        """Answer every row of ``batch``, in row order; raise after exhausted retries."""
        requests = list(self.requests(batch))
        if not requests:
            return BackendAnswers(response_text=[], latency_ms=[], p_favorable=[], p_neither=[])
        makers = [functools.partial(self._body, request) for request in requests]
        answers = self._loop.run(self._answer_all(makers, text_only=False))
        p_fav: list[float | None] = []
        p_nei: list[float | None] = []
        for request, answer in zip(requests, answers, strict=True):
            letters = answer.letters
            p_fav.append(
                None if letters is None else letters.p_letter_share(request.ordering.favorable_letter)
            )
            p_nei.append(None if letters is None else letters.p_neither)
        return BackendAnswers(
            response_text=[a.text for a in answers],
            latency_ms=[a.latency_ms for a in answers],
            p_favorable=p_fav,
            p_neither=p_nei,
        )

    def judge_pairs(self, batch: pl.DataFrame) -> BackendAnswers:
        """Answer two-image trials, in row order: one request per row with the left image, the
        right image and the design's question (column ``prompt`` if the batch has one, else the
        study template); columns ``left_image_id, right_image_id, seed`` are read."""
        prompts = pairwise_prompts(batch, self.context)
        makers = [
            functools.partial(self._design_body, (left, right), prompt, int(seed))
            for (left, right, seed), prompt in zip(
                batch.select("left_image_id", "right_image_id", "seed").iter_rows(), prompts, strict=True
            )
        ]
        return self._design_answers(makers)

    def rate(self, batch: pl.DataFrame) -> BackendAnswers:
        """Answer rating requests, in row order: one request per row with the image and the
        design's rating prompt (see :func:`rating_prompts`); columns ``image_id, seed`` are read."""
        prompts = rating_prompts(batch, self.context)
        makers = [
            functools.partial(self._design_body, (image_id,), prompt, int(seed))
            for (image_id, seed), prompt in zip(
                batch.select("image_id", "seed").iter_rows(), prompts, strict=True
            )
        ]
        return self._design_answers(makers)

    def _design_answers(self, makers: Sequence[BodyMaker]) -> BackendAnswers:
        if not makers:
            return BackendAnswers(response_text=[], latency_ms=[])
        answers = self._loop.run(self._answer_all(makers, text_only=True))
        return BackendAnswers(
            response_text=[a.text for a in answers], latency_ms=[a.latency_ms for a in answers]
        )

    def close(self) -> None:
        """Close the connections and stop the backend's event loop."""
        router = self._router
        self._loop.close(router.close if router is not None else None)
        self._router = None

    # ---- async core (runs on the backend's loop)

    async def _answer_all(self, makers: Sequence[BodyMaker], *, text_only: bool) -> list[_Answer]:
        """One request per body maker, concurrently within ``concurrency``; answers in order."""
        if self._router is None:  # pools belong to this loop: create them on it
            s = self.settings
            endpoints = [Endpoint(url, tls_verify=s.tls_verify) for url in s.base_urls]
            self._router = Router(endpoints, s.down_cooldown_s)
        gate = asyncio.Semaphore(self.settings.concurrency)
        tasks = [asyncio.create_task(self._post_one(make, gate, text_only=text_only)) for make in makers]
        try:
            return list(await asyncio.gather(*tasks))
        except BaseException:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise

    async def _post_one(self, make_body: BodyMaker, gate: asyncio.Semaphore, *, text_only: bool) -> _Answer:
        """POST one request with retries and failover; ``text_only`` reads no logprobs."""
        assert self._router is not None
        s = self.settings
        async with gate:
            body = json.dumps(make_body()).encode("utf-8")
            endpoint: Endpoint | None = None
            for attempt in range(s.max_retries + 1):
                endpoint = self._router.choose(avoid=endpoint)
                endpoint.in_flight += 1
                started = time.perf_counter()
                try:
                    text, letters = await self._attempt(endpoint, body, text_only=text_only)
                except RetryableFailure as failure:
                    if attempt == s.max_retries:
                        raise CueshiftError(
                            f"openai backend: {endpoint.url}: {failure.what} "
                            f"(gave up after {attempt + 1} attempts; this batch was not stored)"
                        ) from None
                    delay = backoff_delay(s, attempt, failure.retry_after, self._rng)
                    log.info(
                        "%s: %s; retry %d/%d in %.2fs",
                        endpoint.url,
                        failure.what,
                        attempt + 1,
                        s.max_retries,
                        delay,
                    )
                    await asyncio.sleep(delay)
                    continue
                finally:
                    endpoint.in_flight -= 1
                return _Answer(text, (time.perf_counter() - started) * 1000.0, letters)
        raise AssertionError("unreachable")  # pragma: no cover

    async def _attempt(
        self, endpoint: Endpoint, body: bytes, *, text_only: bool
    ) -> tuple[str, LetterProbabilities | None]:
        """One POST; a failure worth retrying raises :class:`RetryableFailure`."""
        assert self._router is not None
        try:
            response = await endpoint.pool.post(
                "/chat/completions", body, self._headers, self.settings.timeout_s
            )
        except TimeoutError:
            self._router.failed(endpoint)
            raise RetryableFailure(f"timed out after {self.settings.timeout_s:g}s") from None
        except TransportError as exc:
            self._router.failed(endpoint)
            raise RetryableFailure(self.scrub(str(exc))) from None
        if response.status != 200:
            what = f"HTTP {response.status}: {self._excerpt(response.body)}"
            if response.status >= 500:
                self._router.failed(endpoint)
            if retryable(response.status):
                raise RetryableFailure(what, retry_after(response))
            raise CueshiftError(
                f"openai backend: {endpoint.url}: {what} (not retried; this batch was not stored)"
            )
        try:
            text, letters = parse_completion(response.body, self.settings, text_only=text_only)
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise RetryableFailure(f"malformed response body ({type(exc).__name__})") from None
        except CueshiftError as exc:
            raise CueshiftError(f"openai backend: {endpoint.url}: {exc}") from None
        self._router.succeeded(endpoint)
        return self.scrub(text), letters

    # ---- request bodies

    def _body(self, request: JudgmentRequest) -> dict[str, Any]:
        """The request of one forced-choice judgment, with logprobs when the settings ask."""
        body = chat_body(
            self.settings,
            self.model.checkpoint,
            [self._data_url(request.image.path)],
            request.prompt,
            request.seed,
        )
        if self.settings.logprobs:
            body.update(logprobs=True, top_logprobs=self.settings.top_logprobs)
        return body

    def _design_body(self, image_ids: Sequence[str], prompt: str, seed: int) -> dict[str, Any]:
        """The request of a design row: the images in order, then the prompt; no logprobs."""
        urls = [self._data_url(self.context.images[i].path) for i in image_ids]
        return chat_body(self.settings, self.model.checkpoint, urls, prompt, seed)

    def _excerpt(self, body: bytes, limit: int = 200) -> str:
        text = " ".join(body.decode("utf-8", errors="replace").split())
        text = self.scrub(text)
        return text[:limit] + ("…" if len(text) > limit else "") if text else "<empty body>"


__all__ = ["OpenAIBackend"]

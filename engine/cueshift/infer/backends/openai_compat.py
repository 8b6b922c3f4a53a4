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
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import functools
import io
import json
import logging
import math
import os
import random
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any, ClassVar, Literal, TypeVar

import polars as pl
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from cueshift.errors import ConfigError, CueshiftError
from cueshift.infer.backends.base import (
    Backend,
    BackendAnswers,
    JudgmentRequest,
    StudyContext,
    pairwise_prompts,
    rating_prompts,
)
from cueshift.infer.backends.openai_http import ConnectionPool, HttpResponse, Origin, TransportError
from cueshift.study.config import ModelConfig

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Statuses worth another attempt (besides every 5xx).
RETRY_STATUSES = frozenset({408, 409, 425, 429})
#: Request fields set by the backend; ``extra_body`` may not override them.
RESERVED_FIELDS = frozenset(
    {"model", "messages", "temperature", "max_tokens", "seed", "logprobs", "top_logprobs"}
)
REDACTED = "[redacted]"

_MIME_BY_SUFFIX = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".webp": "image/webp",
    ".gif": "image/gif",
}


class OpenAISettings(BaseModel):
    """``[models.settings]`` of a model with ``backend = "openai"``.

    The served model name is the model's ``checkpoint`` (what the server lists under
    ``/v1/models``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    base_urls: list[str] = Field(min_length=1, description="e.g. ['http://127.0.0.1:8000/v1']; replicas")
    api_key_env: str | None = Field(
        default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", description="NAME of the env var holding the key"
    )
    api_key_header: str = Field(
        default="Authorization",
        pattern=r"^[A-Za-z0-9-]+$",
        description="'Authorization' sends 'Bearer <key>'; any other header (e.g. 'api-key') the bare key",
    )
    concurrency: int = Field(default=8, ge=1, le=1024, description="requests in flight at once")
    max_retries: int = Field(default=5, ge=0, le=100, description="further attempts per judgment")
    timeout_s: float = Field(default=60.0, gt=0, description="deadline of one attempt (connect to last byte)")
    backoff_initial_s: float = Field(default=0.5, ge=0, description="first backoff; doubles per attempt")
    backoff_max_s: float = Field(default=30.0, ge=0, description="cap of the exponential backoff")
    retry_after_max_s: float = Field(default=120.0, ge=0, description="cap on an honoured Retry-After")
    down_cooldown_s: float = Field(default=10.0, ge=0, description="avoid a failing endpoint this long")
    mode: Literal["generate", "score"] = Field(
        default="generate",
        description="generate: the sampled protocol, per seed; score: temperature 0, seed 0, logprobs",
    )
    temperature: float = Field(default=0.2, ge=0, le=2, description="generate mode (score mode sends 0)")
    max_tokens: int = Field(default=16, ge=1)
    logprobs: bool = Field(default=True, description="ask for logprobs (score information) when served")
    top_logprobs: int = Field(default=20, ge=1, le=20)
    image_first: bool = Field(default=True, description="image part before the text part of the message")
    image_detail: Literal["auto", "low", "high"] | None = None
    system_prompt: str | None = None
    extra_body: dict[str, Any] = Field(
        default_factory=dict, description="further request fields (server-specific)"
    )
    tls_verify: bool = True

    @field_validator("base_urls")
    @classmethod
    def _urls(cls, value: list[str]) -> list[str]:
        for url in value:
            try:
                Origin.parse(url)
            except ValueError as exc:
                raise ValueError(f"base URL #{value.index(url) + 1} {exc}") from None
        if len(set(value)) != len(value):
            raise ValueError("base URLs repeat")
        return [url.rstrip("/") for url in value]

    @model_validator(mode="after")
    def _score_needs_logprobs(self) -> OpenAISettings:
        if self.mode == "score" and not self.logprobs:
            raise ValueError("mode 'score' needs logprobs = true")
        return self

    @field_validator("extra_body")
    @classmethod
    def _extra(cls, value: dict[str, Any]) -> dict[str, Any]:
        clash = sorted(RESERVED_FIELDS & value.keys())
        if clash:
            raise ValueError(f"extra_body may not set {', '.join(clash)} (use the settings of that name)")
        return value


def parse_settings(model: ModelConfig) -> OpenAISettings:
    """Validate ``model.settings``; any problem becomes a one-line :class:`ConfigError`."""
    try:
        return OpenAISettings.model_validate(model.settings)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or "<settings>"
        more = f" (+{exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise ConfigError(f"model {model.model_id!r}: settings.{field}: {err['msg']}{more}") from None


# --------------------------------------------------------------------------- letter probabilities

#: A token that answers with a letter: "a", "(a", "(a)", "a)", "a.", "(A)"... after stripping
#: whitespace. Bare capitals ("A") are not letters: at the answer position they are the article.
_LETTER = re.compile(r"^(?:\(\s*([abAB])|([ab]))\s*\)?\s*[.,:]?$")
#: After an opening parenthesis only the letter (and an optional closing part) may follow.
_LETTER_AFTER_OPEN = re.compile(r"^([abAB])\s*\)?\s*[.,:]?$")
#: Tokens that may come before the letter without deciding it.
_OPEN = re.compile(r"^\s*\(\s*$")
_SPACE = re.compile(r"^\s+$")


@dataclass(frozen=True)
class LetterProbabilities:
    """P(answer starts with letter a), P(... b), and the rest of the mass."""

    p_a: float
    p_b: float

    @property
    def p_neither(self) -> float:
        return min(1.0, max(0.0, 1.0 - self.p_a - self.p_b))

    def p_letter_share(self, letter: str) -> float | None:
        """P(letter) / (P(a) + P(b)): the two-way choice, ``None`` when neither letter has mass."""
        total = self.p_a + self.p_b
        if total <= 0.0:
            return None
        return (self.p_a if letter == "a" else self.p_b) / total


def letter_probabilities(content: Sequence[dict[str, Any]]) -> LetterProbabilities | None:
    r"""Probability of answering (a) versus (b) from chat-completion ``logprobs.content``.

    Parameters
    ----------
    content
        The per-position entries ``{"token", "logprob", "top_logprobs": [{"token", "logprob"}]}``
        of the sampled answer, as OpenAI, vLLM and llama.cpp server return them.

    Returns
    -------
    LetterProbabilities or None
        ``None`` when the server returned no positions or no ``top_logprobs``.

    Notes
    -----
    Tokenizers split "(a)" differently: one token ``"(a)"``, ``"(a"`` + ``")"``, ``"("`` +
    ``"a"`` + ``")"``, or a leading space ``" ("``. The variants are merged by walking the
    sampled path from the first position:

    * every alternative at the current position whose text (whitespace stripped) reads as
      a letter answer — ``a``, ``(a``, ``(a)``, ``a)``, ``a.`` and ``(A``/``(A)`` — adds
      :math:`\pi \cdot p(t)` to that letter, where :math:`\pi` is the probability of the
      sampled prefix so far (1 at the first position); bare capitals are not counted
      (``"A"`` is the article);
    * if the *sampled* token is a lone ``"("`` (or whitespace before any parenthesis), the
      walk moves on with :math:`\pi \leftarrow \pi \cdot p(\text{sampled})`, and at the next
      position only letter continuations (``a``, ``a)``...) count;
    * otherwise the walk stops.

    So :math:`P(a) = \sum_{\text{paths}} \prod p` over the letter-answer paths that branch
    off the sampled path, which is exact when the sampled path passes through every prefix
    token with mass (always at temperature 0, where the sampled token is the argmax) and a
    lower bound otherwise. Alternatives missing from ``top_logprobs`` count as neither:
    :math:`p_\text{neither} = 1 - P(a) - P(b)`.

    The log-probabilities are taken as the server reports them. Servers differ in whether
    those include the sampling temperature (vLLM's default reports the model's own
    distribution, before temperature); score mode asks for temperature 0 and reads the
    reported distribution as the model's.
    """
    if not content:
        return None
    p = {"a": 0.0, "b": 0.0}
    prefix = 1.0
    opened = False
    for position in content:
        top = position.get("top_logprobs")
        if not top:
            return None if position is content[0] else LetterProbabilities(p["a"], p["b"])
        sampled = str(position.get("token", ""))
        alternatives = list(top)
        if not any(alt.get("token") == sampled for alt in alternatives) and "logprob" in position:
            alternatives.append({"token": sampled, "logprob": position["logprob"]})
        pattern = _LETTER_AFTER_OPEN if opened else _LETTER
        for alt in alternatives:
            match = pattern.match(str(alt.get("token", "")).strip())
            if match:
                letter = next(g for g in match.groups() if g).lower()
                p[letter] += prefix * math.exp(float(alt["logprob"]))
        if opened or not (_OPEN.match(sampled) or _SPACE.match(sampled)):
            break
        opened = bool(_OPEN.match(sampled))
        prefix *= math.exp(float(position.get("logprob", 0.0)))
    return LetterProbabilities(p["a"], p["b"])


# --------------------------------------------------------------------------- endpoints


class _Endpoint:
    """One base URL: its connection pool and the state used for spreading and failover."""

    def __init__(self, url: str, settings: OpenAISettings) -> None:
        self.url = url
        self.pool = ConnectionPool(Origin.parse(url), tls_verify=settings.tls_verify)
        self.in_flight = 0
        self.picks = 0
        self.down_until = 0.0


class _Router:
    """Least-in-flight choice among endpoints that are not cooling down; ties in turn."""

    def __init__(self, endpoints: list[_Endpoint], cooldown_s: float) -> None:
        self.endpoints = endpoints
        self.cooldown_s = cooldown_s

    def choose(self, avoid: _Endpoint | None) -> _Endpoint:
        now = time.monotonic()
        up = [e for e in self.endpoints if e.down_until <= now]
        if not up:  # all cooling down: try the one that comes back first rather than stall
            up = [min(self.endpoints, key=lambda e: e.down_until)]
        if avoid is not None and len(up) > 1 and avoid in up:
            up.remove(avoid)
        chosen = min(up, key=lambda e: (e.in_flight, e.picks))
        chosen.picks += 1
        return chosen

    def failed(self, endpoint: _Endpoint) -> None:
        endpoint.down_until = time.monotonic() + self.cooldown_s

    def succeeded(self, endpoint: _Endpoint) -> None:
        endpoint.down_until = 0.0


@dataclass(frozen=True)
class _Answer:
    text: str
    latency_ms: float
    letters: LetterProbabilities | None


class _Retry(Exception):
    """An attempt failed in a way worth retrying; ``what`` describes it (already scrubbed)."""

    def __init__(self, what: str, retry_after: float | None = None) -> None:
        super().__init__(what)
        self.what = what
        self.retry_after = retry_after


# --------------------------------------------------------------------------- the backend


class OpenAIBackend(Backend):
    """Generate mode against OpenAI-compatible servers, with score information when served.

    Parameters
    ----------
    model
        The study's model entry: ``checkpoint`` is the served model name and ``settings``
        validate as :class:`OpenAISettings`.
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
        self._images: OrderedDict[Path, str] = OrderedDict()
        self._images_max = max(32, 2 * self.settings.concurrency)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._endpoints: list[_Endpoint] = []
        self._router: _Router | None = None
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
        answers = self._run(self._judge_all(requests))
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

    def _design_answers(self, makers: Sequence[Callable[[], dict[str, Any]]]) -> BackendAnswers:
        if not makers:
            return BackendAnswers(response_text=[], latency_ms=[])
        answers = self._run(self._answer_all(makers, text_only=True))
        return BackendAnswers(
            response_text=[a.text for a in answers], latency_ms=[a.latency_ms for a in answers]
        )

    def close(self) -> None:
        """Close the connections and stop the backend's event loop."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        if loop.is_running():
            pools = [e.pool for e in self._endpoints]
            closing = asyncio.run_coroutine_threadsafe(_close_pools(pools), loop)
            with contextlib.suppress(Exception):  # best effort on shutdown
                closing.result(timeout=5)
            loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=5)
        loop.close()
        self._loop = self._thread = None
        self._endpoints = []
        self._router = None

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the backend's loop thread and wait for it."""
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
            self._thread = threading.Thread(
                target=self._loop.run_forever, name="cueshift-openai", daemon=True
            )
            self._thread.start()
        future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        try:
            return future.result()
        except BaseException:
            future.cancel()
            raise

    # ---- async core (runs on the backend's loop)

    async def _judge_all(self, requests: list[JudgmentRequest]) -> list[_Answer]:
        makers = [functools.partial(self._body, request) for request in requests]
        return await self._answer_all(makers, text_only=False)

    async def _answer_all(
        self, makers: Sequence[Callable[[], dict[str, Any]]], *, text_only: bool
    ) -> list[_Answer]:
        """One request per body maker, concurrently within ``concurrency``; answers in order."""
        if self._router is None:  # pools belong to this loop: create them on it
            self._endpoints = [_Endpoint(url, self.settings) for url in self.settings.base_urls]
            self._router = _Router(self._endpoints, self.settings.down_cooldown_s)
        gate = asyncio.Semaphore(self.settings.concurrency)
        tasks = [asyncio.create_task(self._post_one(make, gate, text_only=text_only)) for make in makers]
        try:
            return list(await asyncio.gather(*tasks))
        except BaseException:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise

    async def _judge_one(self, request: JudgmentRequest, gate: asyncio.Semaphore) -> _Answer:
        return await self._post_one(functools.partial(self._body, request), gate, text_only=False)

    async def _post_one(
        self, make_body: Callable[[], dict[str, Any]], gate: asyncio.Semaphore, *, text_only: bool
    ) -> _Answer:
        """POST one request with retries and failover; ``text_only`` reads no logprobs."""
        assert self._router is not None
        s = self.settings
        async with gate:
            body = json.dumps(make_body()).encode("utf-8")
            endpoint: _Endpoint | None = None
            for attempt in range(s.max_retries + 1):
                endpoint = self._router.choose(avoid=endpoint)
                endpoint.in_flight += 1
                started = time.perf_counter()
                try:
                    answer = await self._attempt(endpoint, body, text_only=text_only)
                except _Retry as failure:
                    if attempt == s.max_retries:
                        raise CueshiftError(
                            f"openai backend: {endpoint.url}: {failure.what} "
                            f"(gave up after {attempt + 1} attempts; this batch was not stored)"
                        ) from None
                    delay = self._backoff(attempt, failure.retry_after)
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
                latency = (time.perf_counter() - started) * 1000.0
                return _Answer(answer[0], latency, answer[1])
        raise AssertionError("unreachable")  # pragma: no cover

    async def _attempt(
        self,
        endpoint: _Endpoint,
        body: bytes,
        request: JudgmentRequest | None = None,
        *,
        text_only: bool = False,
    ) -> tuple[str, LetterProbabilities | None]:
        assert self._router is not None
        try:
            response = await endpoint.pool.post(
                "/chat/completions", body, self._headers, self.settings.timeout_s
            )
        except TimeoutError:
            self._router.failed(endpoint)
            raise _Retry(f"timed out after {self.settings.timeout_s:g}s") from None
        except TransportError as exc:
            self._router.failed(endpoint)
            raise _Retry(self.scrub(str(exc))) from None
        if response.status != 200:
            what = f"HTTP {response.status}: {self._excerpt(response.body)}"
            if response.status >= 500:
                self._router.failed(endpoint)
            if response.status >= 500 or response.status in RETRY_STATUSES:
                raise _Retry(what, _retry_after(response))
            raise CueshiftError(
                f"openai backend: {endpoint.url}: {what} (not retried; this batch was not stored)"
            )
        try:
            text, letters = self._parse(response, text_only=text_only)
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise _Retry(f"malformed response body ({type(exc).__name__})") from None
        except CueshiftError as exc:
            raise CueshiftError(f"openai backend: {endpoint.url}: {exc}") from None
        self._router.succeeded(endpoint)
        return self.scrub(text), letters

    # ---- request and response

    def _body(self, request: JudgmentRequest) -> dict[str, Any]:
        """The request of one forced-choice judgment, with logprobs when the settings ask."""
        body = self._chat_body([request.image.path], request.prompt, request.seed)
        if self.settings.logprobs:
            body.update(logprobs=True, top_logprobs=self.settings.top_logprobs)
        return body

    def _design_body(self, image_ids: Sequence[str], prompt: str, seed: int) -> dict[str, Any]:
        """The request of a design row: the images in order, then the prompt; no logprobs."""
        return self._chat_body([self.context.images[i].path for i in image_ids], prompt, seed)

    def _chat_body(self, image_paths: Sequence[Path], prompt: str, seed: int) -> dict[str, Any]:
        """A chat completion: one ``image_url`` part per image in order, then the prompt (the
        prompt first when ``image_first`` is false), after the optional system prompt."""
        s = self.settings
        parts: list[dict[str, Any]] = []
        for path in image_paths:
            image: dict[str, Any] = {"url": self._data_url(path)}
            if s.image_detail is not None:
                image["detail"] = s.image_detail
            parts.append({"type": "image_url", "image_url": image})
        text = {"type": "text", "text": prompt}
        parts = [*parts, text] if s.image_first else [text, *parts]
        messages: list[dict[str, Any]] = []
        if s.system_prompt:
            messages.append({"role": "system", "content": s.system_prompt})
        messages.append({"role": "user", "content": parts})
        body: dict[str, Any] = dict(s.extra_body)
        body.update(
            model=self.model.checkpoint,
            messages=messages,
            temperature=self._temperature(),
            max_tokens=s.max_tokens,
            seed=seed,
        )
        return body

    def _temperature(self) -> float:
        return 0.0 if self.settings.mode == "score" else self.settings.temperature

    def _parse(
        self, response: HttpResponse, *, text_only: bool = False
    ) -> tuple[str, LetterProbabilities | None]:
        data = json.loads(response.body)
        choice = data["choices"][0]
        content = choice["message"]["content"]
        if content is None:
            text = ""
        elif isinstance(content, str):
            text = content
        elif isinstance(content, list):
            text = "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
        else:
            raise TypeError("message.content")
        letters = None
        if text_only:  # design requests: the text is the whole answer
            return text, None
        logprobs = choice.get("logprobs")
        if (
            self.settings.logprobs
            and isinstance(logprobs, dict)
            and isinstance(logprobs.get("content"), list)
        ):
            letters = letter_probabilities(logprobs["content"])
        if letters is None and self.settings.mode == "score":
            raise CueshiftError(
                "the server returned no logprobs/top_logprobs; mode 'score' needs them "
                "(mode 'generate' works without)"
            )
        return text, letters

    def _data_url(self, path: Path) -> str:
        cached = self._images.get(path)
        if cached is not None:
            self._images.move_to_end(path)
            return cached
        mime = _MIME_BY_SUFFIX.get(path.suffix.lower())
        if mime is None:  # e.g. BMP/TIFF: send PNG
            from PIL import Image

            buffer = io.BytesIO()
            with Image.open(path) as img:
                img.convert("RGB").save(buffer, format="PNG")
            raw, mime = buffer.getvalue(), "image/png"
        else:
            raw = path.read_bytes()
        url = f"data:{mime};base64,{base64.b64encode(raw).decode('ascii')}"
        self._images[path] = url
        if len(self._images) > self._images_max:
            self._images.popitem(last=False)
        return url

    def _excerpt(self, body: bytes, limit: int = 200) -> str:
        text = " ".join(body.decode("utf-8", errors="replace").split())
        text = self.scrub(text)
        return text[:limit] + ("…" if len(text) > limit else "") if text else "<empty body>"

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        """Exponential backoff with equal jitter; at least an honoured ``Retry-After``."""
        s = self.settings
        cap = min(s.backoff_max_s, s.backoff_initial_s * (2**attempt))
        delay = cap / 2 + self._rng.uniform(0, cap / 2)
        if retry_after is not None:
            delay = max(delay, min(retry_after, s.retry_after_max_s))
        return delay


# --------------------------------------------------------------------------- design prompts


def _retry_after(response: HttpResponse) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or HTTP date); ``None`` if absent."""
    value = response.headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


async def _close_pools(pools: list[ConnectionPool]) -> None:
    for pool in pools:
        await pool.close()

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
    answers are not retried. A request that exhausts its retries, or that the server
    refuses (400, 413, 422...), fails alone: the batch's other answers are returned and
    :attr:`BackendAnswers.failures` names the failed rows with their attempts and last
    error, which the runner records and plans again on a later run. 401/403/404 answers,
    and a server that fails :mod:`.openai_client`'s health check after
    ``health_check_after`` failures in a row, stop the run with a one-line
    :class:`~cueshift.errors.CueshiftError` (the batch is not stored).
Load spreading
    Several ``base_urls`` (replicas serving the same model) share the load: each attempt
    goes to the endpoint with the fewest requests in flight (ties in turn). An endpoint
    that fails at the transport level or answers 5xx is avoided for ``down_cooldown_s``,
    and a retry prefers an endpoint other than the one that just failed (failover).
Secrets
    The API key is read from the environment variable named by ``api_key_env``; only the
    name is part of the settings (and so of the ``model`` table). The key itself is sent
    in one header and redacted (:func:`~.openai_redact.redact`: raw, JSON-escaped,
    URL-encoded, HTML entities, prefixes and suffixes of six characters or more) from every
    error message, log line, answer text and server description.
vLLM as it behaves
    ``constrain = "structured_outputs"`` sends ``{"choice": choices}`` with forced-choice
    requests (vLLM >= 0.12; ``"guided_choice"`` for older servers, which 0.12 and later
    ignore with HTTP 200); the first ``constraint_check`` answers must each be one of the
    choices, else the run stops saying the constraint did not take effect. Requests of a
    batch are sent grouped by image (image first, then instruction, then scenario text, so
    a prefix cache shares the image's blocks), each image with a stable ``uuid`` when
    ``image_uuid`` is set. ``top_logprobs`` is lowered to the server's ``--max-logprobs``
    when the server names it. :meth:`OpenAIBackend.run_report` records the served model
    names, ``system_fingerprint`` values, the server version (``GET /version``), how many
    answers lacked logprobs, and the consistency probe
    (:mod:`.openai_consistency`): ``consistency_probe`` answered requests, sent again at
    the end of the run, with the drift of their answers and logprobs.
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

Modules: :mod:`.openai_settings` (settings), :mod:`.openai_messages` (request bodies),
:mod:`.openai_completion` (answers), :mod:`.openai_logprobs` (letter probabilities),
:mod:`.openai_requests` (rows to requests, outcomes to answers), :mod:`.openai_designs`
(pairwise trials and ratings), :mod:`.openai_client` (requests, failures, health check),
:mod:`.openai_router` (load spreading), :mod:`.openai_retry` (what is retried, backoff),
:mod:`.openai_http` (HTTP/1.1 connections), :mod:`.openai_redact` (secrets),
:mod:`.openai_reachable` (the key and the server, checked before anything is written),
:mod:`.openai_server_info` and :mod:`.openai_consistency` (the run record), :mod:`.loop_thread`
(the event loop).
"""

from __future__ import annotations

import functools
import zlib
from typing import Any, ClassVar

import polars as pl

from cueshift.errors import ConfigError, CueshiftError
from cueshift.inference.backends.base import Backend, BackendAnswers, StudyContext
from cueshift.inference.backends.loop_thread import LoopThread
from cueshift.inference.backends.openai_client import ChatClient
from cueshift.inference.backends.openai_consistency import drift
from cueshift.inference.backends.openai_designs import OpenAIDesigns
from cueshift.inference.backends.openai_messages import DataUrls
from cueshift.inference.backends.openai_reachable import auth_headers, read_api_key
from cueshift.inference.backends.openai_redact import REDACTED, Redactor
from cueshift.inference.backends.openai_settings import parse_settings
from cueshift.study.config import ModelConfig


class OpenAIBackend(OpenAIDesigns, Backend):
    """Generate mode against OpenAI-compatible servers, with score information when served.

    Parameters
    ----------
    model
        The study's model entry: ``checkpoint`` is the served model name and ``settings``
        validate as :class:`~cueshift.inference.backends.openai_settings.OpenAISettings`.
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
        key = read_api_key(model, self.settings)
        self.scrub = Redactor(key)
        headers = auth_headers(self.settings, key)
        self._data_url = DataUrls(max(32, 2 * self.settings.concurrency))
        self._loop = LoopThread("cueshift-openai")
        self._client = ChatClient(
            self.settings, headers, self.scrub, seed=zlib.crc32(model.model_id.encode())
        )
        self._constraint_checked = 0

    @property
    def deterministic(self) -> bool:
        """True in score mode: the answer does not depend on the seed, so plan seed 0 only."""
        return self.settings.mode == "score"

    # ---- sync surface

    def judge(self, batch: pl.DataFrame) -> BackendAnswers:
        """Answer every row of ``batch`` (row order); rows given up on are in ``failures``."""
        requests = list(self.requests(batch))
        if not requests:
            return BackendAnswers(response_text=[], latency_ms=[], p_favorable=[], p_neither=[])
        makers = [functools.partial(self._body, request) for request in requests]
        outcomes = self._ask(makers, [r.image.image_id for r in requests], text_only=False)
        self._check_constraint(outcomes)
        p_fav: list[float | None] = []
        p_nei: list[float | None] = []
        for request, outcome in zip(requests, outcomes, strict=True):
            letters = None if outcome.completion is None else outcome.completion.letters
            p_fav.append(
                None if letters is None else letters.p_letter_share(request.ordering.favorable_letter)
            )
            p_nei.append(None if letters is None else letters.p_neither)
        return self._answers(outcomes, p_favorable=p_fav, p_neither=p_nei)

    def run_report(self) -> dict[str, Any]:
        """The run record of this backend: the server's identity and the consistency probe
        (which sends the sampled requests again now). ``lines``: what to print."""
        if not self._loop.started:
            return {}
        client = self._client
        samples = list(client.reservoir.samples)
        report: dict[str, Any] = {}
        try:  # everything is stored by now: a server that stops answering only loses the probe
            repeats = self._loop.run(client.repeat(samples)) if samples else []
        except CueshiftError as exc:
            report["consistency_error"] = str(exc)
            samples = []
        self._loop.run(client.describe_servers())
        report["server"] = client.info.as_dict()
        lines = [client.info.line()] if client.info.answered else []
        if "consistency_error" in report:
            lines.append(f"consistency probe failed: {report['consistency_error']}")
        if samples:
            s = self.settings
            temperature = 0.0 if s.mode == "score" else s.temperature
            result = drift(
                [(sample.completion, again) for sample, again in zip(samples, repeats, strict=True)],
                temperature,
            )
            report["consistency"] = result.as_dict()
            lines.append(result.line())
        report["lines"] = [f"model {self.model.model_id!r}: {line}" for line in lines]
        return report

    def close(self) -> None:
        """Close the connections and stop the backend's event loop."""
        self._loop.close(self._client.close)


__all__ = ["REDACTED", "OpenAIBackend"]

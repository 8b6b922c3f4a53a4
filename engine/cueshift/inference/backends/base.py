"""The contract between the runner and a backend.

The runner hands a backend a batch of planned judgments as a polars frame with columns
``image_id, scenario_id, ordering, seed`` and gets back, row for row, the raw answer
text (always parsed by :mod:`cueshift.inference.parser`, never trusted), the latency and,
for scoring backends, P(favorable) and the probability mass on neither letter (and, for
probe backends, the association behind P(favorable) and its logit scale).

A backend never touches the study database: what it may keep between runs (CLIP
embeddings) goes through the :class:`~cueshift.inference.embedding_cache.EmbeddingCache` that
the runner puts in :class:`StudyContext`.
"""

from __future__ import annotations

import abc
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import polars as pl

from cueshift.inference.embedding_cache import EmbeddingCache
from cueshift.study.config import ModelConfig
from cueshift.study.scenarios import ORDERING_BY_ID, Ordering, Scenario


@dataclass(frozen=True)
class ImageRecord:
    """One image as a backend sees it: the file, and (for the simulated judge) its metadata."""

    image_id: str
    face_id: str
    path: Path  # absolute
    role: str
    feature_key: str | None
    variation_category: str | None
    variation_value: str | None
    framing: str
    age: str | None
    gender: str | None
    ethnicity: str | None
    body_type: str | None


@dataclass(frozen=True)
class StudyContext:
    """Everything a backend may look up while answering."""

    images: Mapping[str, ImageRecord]
    scenarios: Mapping[str, Scenario]
    template: str
    #: where embedding backends (CLIP) keep vectors between runs; None: nothing is kept
    embeddings: EmbeddingCache | None = None


@dataclass(frozen=True)
class JudgmentRequest:
    """One planned judgment, resolved (for backends that work prompt by prompt)."""

    image: ImageRecord
    scenario: Scenario
    ordering: Ordering
    seed: int
    prompt: str


@dataclass(frozen=True)
class RequestFailure:
    """A row of a batch that its backend gave up on (retries exhausted, or refused by the server).

    The other rows of the batch are answered; the runner stores those, records this one and
    plans it again on a later run.
    """

    row: int  # position in the batch
    attempts: int  # requests sent for it
    error: str  # one line, secrets redacted


@dataclass(frozen=True)
class BackendAnswers:
    r"""Answers to a batch, in the batch's row order.

    Attributes
    ----------
    response_text, latency_ms
        The raw answer and its latency, per row.
    p_favorable, p_neither
        Scoring backends: P(the answer names the favorable pole) and the mass on neither letter.
    association, logit_scale
        Probe backends (CLIP): the bipolar association :math:`m` of each row (seed 004 Eq. 1)
        and the model's logit scale :math:`s`, with ``p_favorable`` :math:`= \sigma(s\,m)`.
    failures
        Rows the backend gave up on (their entries in the lists above are placeholders);
        see :meth:`answered_rows` and :meth:`take`.
    """

    response_text: list[str]
    latency_ms: list[float]
    p_favorable: list[float | None] | None = None
    p_neither: list[float | None] | None = None
    association: list[float | None] | None = None
    logit_scale: float | None = None
    failures: tuple[RequestFailure, ...] = field(default=())

    def __post_init__(self) -> None:
        n = len(self.response_text)
        for name in ("latency_ms", "p_favorable", "p_neither", "association"):
            values = getattr(self, name)
            if values is not None and len(values) != n:
                raise ValueError(f"backend answered {n} texts but {len(values)} {name}")
        rows = [f.row for f in self.failures]
        if len(set(rows)) != len(rows) or any(not 0 <= r < n for r in rows):
            raise ValueError(f"backend reported failures for rows {sorted(rows)} of a batch of {n}")

    def answered_rows(self) -> list[int]:
        """Positions of the rows that were answered, in order."""
        failed = {f.row for f in self.failures}
        return [i for i in range(len(self.response_text)) if i not in failed]

    def take(self, rows: Sequence[int]) -> BackendAnswers:
        """The answers of ``rows`` only (in that order), without failures."""

        def pick(values: list[Any] | None) -> list[Any] | None:
            return None if values is None else [values[i] for i in rows]

        failed = {f.row for f in self.failures}
        if failed & set(rows):
            raise ValueError("take() of rows the backend gave up on")
        return BackendAnswers(
            response_text=[self.response_text[i] for i in rows],
            latency_ms=[self.latency_ms[i] for i in rows],
            p_favorable=pick(self.p_favorable),
            p_neither=pick(self.p_neither),
            association=pick(self.association),
            logit_scale=self.logit_scale,
        )


class Backend(abc.ABC):
    """Base class of every backend.

    Subclasses set ``name`` and implement :meth:`judge`. A scoring backend (``scores``
    True) is deterministic: the runner asks it once per ordering with seed 0 instead of
    once per seed, and it fills ``p_favorable`` (and ``p_neither`` where defined); its
    ``response_text`` is the answer it would give greedily (e.g. ``"(a)"``).
    """

    name: ClassVar[str]
    scores: ClassVar[bool] = False
    #: False for backends without letters (CLIP probes): the runner plans ordering 1 only
    uses_orderings: ClassVar[bool] = True

    def __init__(self, model: ModelConfig, context: StudyContext) -> None:
        self.model = model
        self.context = context

    @abc.abstractmethod
    def judge(self, batch: pl.DataFrame) -> BackendAnswers:
        """Answer every row of ``batch`` (columns image_id, scenario_id, ordering, seed)."""

    def requests(self, batch: pl.DataFrame) -> Iterator[JudgmentRequest]:
        """The batch as resolved requests with rendered prompts, in row order."""
        for image_id, scenario_id, ordering_id, seed in batch.select(
            "image_id", "scenario_id", "ordering", "seed"
        ).iter_rows():
            scenario = self.context.scenarios[scenario_id]
            ordering = ORDERING_BY_ID[ordering_id]
            yield JudgmentRequest(
                image=self.context.images[image_id],
                scenario=scenario,
                ordering=ordering,
                seed=seed,
                prompt=ordering.render(self.context.template, scenario),
            )

    def run_report(self) -> dict[str, Any]:
        """What the backend learnt during the run, for the ``run`` record (server identity,
        consistency probe...); called once after the last batch. Default: nothing."""
        return {}

    def close(self) -> None:  # noqa: B027  (optional hook)
        """Release resources (model weights, HTTP clients)."""


def pairwise_prompts(batch: pl.DataFrame, context: StudyContext) -> list[str]:
    """The question of each two-image trial (seed 002): the batch's ``prompt`` column when it has
    one, else the study template (the pairwise design puts ``[pairwise] prompt`` there)."""
    if "prompt" in batch.columns:
        return [str(p) for p in batch["prompt"].to_list()]
    return [context.template] * batch.height


def rating_prompts(batch: pl.DataFrame, context: StudyContext) -> list[str]:  # noqa: ARG001
    """The rating prompt of each rating row: the batch's ``prompt`` column (the pairwise design
    fills it with ``[pairwise] rating_prompt``), else the seed 002 default."""
    if "prompt" in batch.columns:
        return [str(p) for p in batch["prompt"].to_list()]
    from cueshift.study.sections import PAIRWISE_RATING_PROMPT

    return [PAIRWISE_RATING_PROMPT] * batch.height

"""How the OpenAI-compatible backend turns rows into requests and outcomes into answers.

:class:`ChatRequests` (inherited by :class:`~cueshift.inference.backends.openai_compat.OpenAIBackend`)
sends request bodies grouped by image on the backend's event loop and returns their outcomes in
row order (:meth:`ChatRequests._ask`), turns outcomes into :class:`BackendAnswers` with the
failed rows in ``failures`` (:meth:`ChatRequests._answers`), builds the forced-choice request
body (:meth:`ChatRequests._body`) and stops a run whose answer constraint did not take effect
(:meth:`ChatRequests._check_constraint`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cueshift.errors import CueshiftError
from cueshift.inference.backends.base import BackendAnswers, JudgmentRequest, RequestFailure, StudyContext
from cueshift.inference.backends.loop_thread import LoopThread
from cueshift.inference.backends.openai_client import BodyMaker, ChatClient
from cueshift.inference.backends.openai_messages import DataUrls, chat_body
from cueshift.inference.backends.openai_redact import Redactor
from cueshift.inference.backends.openai_sender import Outcome
from cueshift.inference.backends.openai_settings import OpenAISettings
from cueshift.study.config import ModelConfig


class ChatRequests:
    """Requests and answers of the OpenAI-compatible backend (a mixin of
    :class:`~cueshift.inference.backends.openai_compat.OpenAIBackend`, which sets the attributes
    declared here)."""

    model: ModelConfig
    context: StudyContext
    settings: OpenAISettings
    scrub: Redactor
    _data_url: DataUrls
    _loop: LoopThread
    _client: ChatClient
    _constraint_checked: int

    def _ask(self, makers: Sequence[BodyMaker], groups: Sequence[str], *, text_only: bool) -> list[Outcome]:
        """Send the requests grouped by image (stable), return the outcomes in row order."""
        order = sorted(range(len(makers)), key=lambda i: groups[i])
        outcomes = self._loop.run(self._client.answer_all([makers[i] for i in order], text_only=text_only))
        in_rows: list[Outcome | None] = [None] * len(makers)
        for i, outcome in zip(order, outcomes, strict=True):
            in_rows[i] = outcome
        return [o for o in in_rows if o is not None]

    def _answers(
        self,
        outcomes: Sequence[Outcome],
        *,
        p_favorable: list[float | None] | None = None,
        p_neither: list[float | None] | None = None,
    ) -> BackendAnswers:
        failures = tuple(
            RequestFailure(row, o.attempts, self.scrub(o.error or "no answer"))
            for row, o in enumerate(outcomes)
            if o.completion is None
        )
        return BackendAnswers(
            response_text=[o.completion.text if o.completion else "" for o in outcomes],
            latency_ms=[o.latency_ms for o in outcomes],
            p_favorable=p_favorable,
            p_neither=p_neither,
            failures=failures,
        )

    def _check_constraint(self, outcomes: Sequence[Outcome]) -> None:
        """Stop when one of the first ``constraint_check`` constrained answers is not a choice."""
        s = self.settings
        if s.constrain == "none":
            return
        for outcome in outcomes:
            if self._constraint_checked >= s.constraint_check:
                return
            if outcome.completion is None:
                continue
            self._constraint_checked += 1
            text = outcome.completion.text.strip()
            if text not in s.choices:
                shown = text if len(text) <= 60 else text[:60] + "…"
                hint = (
                    "vLLM >= 0.12 reads structured_outputs and ignores guided_choice"
                    if s.constrain == "guided_choice"
                    else "vLLM < 0.12 reads guided_choice, other servers neither"
                )
                raise CueshiftError(
                    f"model {self.model.model_id!r}: the answer constraint ({s.constrain}) did not take "
                    f"effect: the server answered {shown!r}, not one of {', '.join(map(repr, s.choices))} "
                    f"({hint}; set constrain accordingly, or 'none'); this batch was not stored"
                )

    def _body(self, request: JudgmentRequest) -> dict[str, Any]:
        """The request of one forced-choice judgment, with logprobs when the settings ask."""
        body = chat_body(
            self.settings,
            self.model.checkpoint,
            [self._data_url(request.image.path)],
            request.prompt,
            request.seed,
            constrained=True,
        )
        if self.settings.logprobs:
            body.update(logprobs=True, top_logprobs=self.settings.top_logprobs)
        return body


__all__ = ["ChatRequests"]

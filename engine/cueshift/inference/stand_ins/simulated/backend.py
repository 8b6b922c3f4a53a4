"""The simulated judge as a backend: draws raw answer texts from the planted model.

See :mod:`cueshift.inference.stand_ins.simulated` for the model; every draw is a hash of
``(settings.seed, model_id, image_id, scenario_id, ordering, seed)`` (:mod:`.rng`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt
import polars as pl

from cueshift._types import F64
from cueshift.inference.backends.base import BackendAnswers, StudyContext
from cueshift.inference.stand_ins.simulated.content import SimulatedContent
from cueshift.inference.stand_ins.simulated.defaults import INVALID_KINDS, INVALID_TEXTS
from cueshift.inference.stand_ins.simulated.rng import (
    mix,
    seed_key,
    string_hash,
    string_hashes,
    uniform,
)
from cueshift.inference.stand_ins.simulated.settings import parse_settings, render_style
from cueshift.inference.stand_ins.simulated.terms import logistic, ordering_offset
from cueshift.study.config import ModelConfig
from cueshift.study.scenarios import ORDERING_BY_ID, Scenario

_TAG_ANSWER: Final = 0xA45E_0003
_STREAM_VALID: Final = np.uint64(0x1111_1111_1111_1111)
_STREAM_CHOICE: Final = np.uint64(0x2222_2222_2222_2222)
_STREAM_KIND: Final = np.uint64(0x3333_3333_3333_3333)
_STREAM_STYLE: Final = np.uint64(0x4444_4444_4444_4444)
_STREAM_LATENCY: Final = np.uint64(0x5555_5555_5555_5555)


@dataclass(frozen=True)
class SimulatedDraws:
    """Everything the simulated judge decided for a batch, row-aligned.

    Attributes
    ----------
    p_favorable
        P(names favorable | valid) of each prompt (the truth, not returned to the runner).
    valid
        Whether the answer is valid.
    chose_favorable
        Whether a valid answer names the favorable descriptor (False where invalid).
    chosen_letter
        ``'a'``/``'b'``, or ``''`` where invalid.
    invalid_kind
        ``'refusal'``/``'hedge'``/``'both'``, or ``''`` where valid.
    response_text
        The raw text.
    latency_ms
        The simulated latency.
    """

    p_favorable: F64
    valid: npt.NDArray[np.bool_]
    chose_favorable: npt.NDArray[np.bool_]
    chosen_letter: npt.NDArray[np.str_]
    invalid_kind: npt.NDArray[np.str_]
    response_text: list[str]
    latency_ms: F64


def _cumulative(weights: Sequence[float]) -> F64:
    cumulative: F64 = np.cumsum(np.asarray(weights, dtype=np.float64))
    normalised: F64 = cumulative / cumulative[-1]
    return normalised


class SimulatedBackend(SimulatedContent):
    """The simulated judge as a backend (``backend = "simulated"``).

    Parameters
    ----------
    model
        Its ``settings`` are parsed into :class:`SimulatedSettings` (bad settings raise
        a one-line :class:`~cueshift.errors.ConfigError`).
    context
        Images (with demographics and variation metadata) and scenarios.
    """

    name = "simulated"
    scores = False

    def __init__(self, model: ModelConfig, context: StudyContext) -> None:
        super().__init__(model, context)
        self.settings = parse_settings(model)
        self._answer_key = mix(
            seed_key(self.settings.seed, _TAG_ANSWER), np.uint64(string_hash(model.model_id))
        )
        self._styles = list(self.settings.answer_styles)
        self._style_cumulative = _cumulative(list(self.settings.answer_styles.values()))
        kinds = [kind for kind in INVALID_KINDS if self.settings.invalid_mix.get(kind, 0.0) > 0]
        self._invalid_kinds = kinds
        self._kind_cumulative = _cumulative([self.settings.invalid_mix[k] for k in kinds])
        self._invalid_texts = [(kind, text) for kind in kinds for text in INVALID_TEXTS[kind]]
        first_index = {
            kind: [i for i, (k, _) in enumerate(self._invalid_texts) if k == kind][0] for kind in kinds
        }
        self._kind_first = np.array([first_index[k] for k in kinds], dtype=np.int64)
        self._kind_count = np.array([len(INVALID_TEXTS[k]) for k in kinds], dtype=np.int64)

    def simulate(self, batch: pl.DataFrame) -> SimulatedDraws:
        """Draw the answers of ``batch`` (columns image_id, scenario_id, ordering, seed)."""
        n = batch.height
        image_codes, image_hash, scenario_codes, scenarios, content = self.content_rows(batch)
        orderings = batch.get_column("ordering").to_numpy().astype(np.int64)
        seeds = batch.get_column("seed").to_numpy().astype(np.uint64)
        p_favorable = logistic(content + ordering_offset(self.settings, orderings))

        # one 64-bit key per answer: (settings.seed, model_id) ⊕ image ⊕ scenario ⊕ ordering ⊕ seed
        scenario_hash = string_hashes([s.scenario_id for s in scenarios])
        key = np.broadcast_to(self._answer_key, (n,))
        key = mix(key, image_hash[image_codes])
        key = mix(key, scenario_hash[scenario_codes])
        key = mix(key, orderings.astype(np.uint64))
        key = mix(key, seeds)

        valid = uniform(mix(key, _STREAM_VALID)) >= self._invalid_rates(batch, image_codes)
        chose_favorable = valid & (uniform(mix(key, _STREAM_CHOICE)) < p_favorable)
        u_style = uniform(mix(key, _STREAM_STYLE))
        latency_ms = self.settings.latency_ms_mean * (0.5 + uniform(mix(key, _STREAM_LATENCY)))

        favorable_is_a = np.array(
            [False] + [ORDERING_BY_ID[o].favorable_letter == "a" for o in range(1, max(ORDERING_BY_ID) + 1)]
        )[orderings]
        letter_is_a = favorable_is_a == chose_favorable  # chosen letter is (a)
        chosen_letter = np.where(valid, np.where(letter_is_a, "a", "b"), "")

        # valid text code: ((style * 2 + letter_is_b) * n_scenarios + scenario) * 2 + chose_unfavorable
        n_scenarios = len(scenarios)
        style = np.searchsorted(self._style_cumulative, u_style, side="right").clip(0, len(self._styles) - 1)
        valid_code = ((style * 2 + (~letter_is_a)) * n_scenarios + scenario_codes) * 2 + (~chose_favorable)
        n_valid_codes = len(self._styles) * 2 * n_scenarios * 2

        invalid_kind = np.full(n, "", dtype="<U7")
        code = valid_code.astype(np.int64)
        if self._invalid_kinds and not valid.all():
            kind_index = np.searchsorted(self._kind_cumulative, uniform(mix(key, _STREAM_KIND)), side="right")
            kind_index = kind_index.clip(0, len(self._invalid_kinds) - 1)
            text_index = self._kind_first[kind_index] + np.minimum(
                (u_style * self._kind_count[kind_index]).astype(np.int64), self._kind_count[kind_index] - 1
            )
            invalid_code = n_valid_codes + text_index * n_scenarios + scenario_codes
            code = np.where(valid, code, invalid_code)
            invalid_kind = np.where(valid, "", np.array(self._invalid_kinds, dtype="<U7")[kind_index])

        used = np.unique(code)
        table = np.empty(n_valid_codes + len(self._invalid_texts) * n_scenarios, dtype=object)
        for c in used.tolist():
            table[c] = self._render(c, scenarios, n_scenarios, n_valid_codes)
        return SimulatedDraws(
            p_favorable=p_favorable,
            valid=valid,
            chose_favorable=chose_favorable,
            chosen_letter=chosen_letter,
            invalid_kind=invalid_kind,
            response_text=table[code].tolist(),
            latency_ms=latency_ms,
        )

    def _render(self, code: int, scenarios: Sequence[Scenario], n_scenarios: int, n_valid_codes: int) -> str:
        if code >= n_valid_codes:
            text_index, scenario_code = divmod(code - n_valid_codes, n_scenarios)
            scenario = scenarios[scenario_code]
            template = self._invalid_texts[text_index][1]
            return template.replace("{favorable}", scenario.favorable).replace(
                "{unfavorable}", scenario.unfavorable
            )
        rest, chose_unfavorable = divmod(code, 2)
        rest, scenario_code = divmod(rest, n_scenarios)
        style, letter_is_b = divmod(rest, 2)
        scenario = scenarios[scenario_code]
        descriptor = scenario.unfavorable if chose_unfavorable else scenario.favorable
        return render_style(self._styles[style], "b" if letter_is_b else "a", descriptor)

    def judge(self, batch: pl.DataFrame) -> BackendAnswers:
        """Raw answer texts and simulated latencies; ``p_favorable`` is None (not a scorer)."""
        draws = self.simulate(batch)
        return BackendAnswers(response_text=draws.response_text, latency_ms=draws.latency_ms.tolist())


__all__ = ["SimulatedBackend", "SimulatedDraws"]

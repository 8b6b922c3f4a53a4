r"""The simulated judge for the further designs: pairwise choices, 0-10 ratings, impressions.

:class:`SimulatedDesignBackend` is the :class:`~cueshift.inference.stand_ins.simulated.SimulatedBackend`
(same settings, same forced-choice answers through the same parser) plus three optional
settings sections, all seeded by hashes so every answer is a pure function of its key:

``pairwise`` (seed 002)
    Each stimulus :math:`j` of group :math:`g_j` and cohort :math:`c_j` has the latent
    strength :math:`\theta_j = \gamma_{g_j} + \gamma_{c_j, g_j} + \sigma z_j`, and

    .. math:: P(\text{left wins}) = \operatorname{logistic}(\theta_{\text{left}} - \theta_{\text{right}} + h),

    a Bradley–Terry model with position bias :math:`h` (:func:`pairwise_win_probability`).
``rating`` (seed 002)
    A 0-10 rating :math:`\operatorname{clip}(\operatorname{round}(\mu + \kappa (\lambda\, \ell_j) + \tau e))`
    with the stimulus's latent :math:`\ell_j` (:func:`stimulus_latent`, shared with the
    synthetic human raters), fidelity :math:`\lambda` and noise :math:`e \sim N(0,1)`.
``impressions`` (seed 004)
    The forced-choice logit of attribute :math:`a` for identity :math:`f` gains
    :math:`\phi\, c_a\, z_{f,a}`: the latent impression :math:`z_{f,a}` (:func:`latent_impressions`,
    shared with the synthetic human raters), the attribute's societal consistency :math:`c_a`
    and the model's fidelity :math:`\phi`, so models learn consistent impressions better.

Latents use the fixed seed :data:`~.simulated_design_latents.LATENT_SEED` (the "society"),
independent of ``settings.seed`` (the model), so humans and every simulated model see the same
truth (:mod:`.simulated_design_latents`); the settings sections and answer formats are in
:mod:`.simulated_design_settings`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np
import polars as pl
from pydantic import ValidationError

from cueshift._types import F64, U64
from cueshift.errors import ConfigError
from cueshift.inference.backends.base import BackendAnswers, StudyContext
from cueshift.inference.stand_ins.simulated import SimulatedBackend
from cueshift.inference.stand_ins.simulated.columns import factorize
from cueshift.inference.stand_ins.simulated.content import ContentRows
from cueshift.inference.stand_ins.simulated.rng import (
    mix,
    seed_key,
    standard_normal,
    string_hash,
    string_hashes,
    uniform,
)
from cueshift.inference.stand_ins.simulated_design_latents import (
    default_impression_maps,
    latent_impressions,
    pairwise_win_probability,
    stimulus_latent,
)
from cueshift.inference.stand_ins.simulated_design_settings import (
    ANSWER_SECTIONS,
    PAIRWISE_INVALID,
    PAIRWISE_STYLES,
    RATING_INVALID,
    RATING_STYLES,
    ImpressionJudgeSettings,
    PairwiseJudgeSettings,
    RatingJudgeSettings,
)
from cueshift.study.config import ModelConfig

_TAG_PAIR: Final = 0x9A12_0004
_TAG_RATE: Final = 0x4A7E_0005
_S_VALID: Final = np.uint64(0x1212_3434_5656_7878)
_S_CHOICE: Final = np.uint64(0x2323_4545_6767_8989)
_S_STYLE: Final = np.uint64(0x3434_5656_7878_9A9A)
_S_NOISE: Final = np.uint64(0x4545_6767_8989_ABAB)


def _pick(pool: Sequence[str], u: float) -> str:
    """The entry of ``pool`` that the uniform draw ``u`` in [0, 1) falls on (equal shares)."""
    return pool[min(int(u * len(pool)), len(pool) - 1)]


def _split_settings(model: ModelConfig) -> tuple[ModelConfig, dict[str, Any]]:
    rest = {k: v for k, v in model.settings.items() if k not in ANSWER_SECTIONS}
    parsed: dict[str, Any] = {}
    for key, cls in ANSWER_SECTIONS.items():
        if key not in model.settings:
            continue
        try:
            parsed[key] = cls.model_validate(model.settings[key])
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"]) or "<section>"
            raise ConfigError(f"model {model.model_id!r}: settings.{key}.{field}: {err['msg']}") from None
    return model.model_copy(update={"settings": rest}), parsed


class SimulatedDesignBackend(SimulatedBackend):
    """The simulated judge with pairwise choices, ratings and latent impressions (see module doc)."""

    name = "simulated"

    def __init__(self, model: ModelConfig, context: StudyContext) -> None:
        base_model, sections = _split_settings(model)
        super().__init__(base_model, context)
        self.model = model
        self.pairwise: PairwiseJudgeSettings = sections.get("pairwise", PairwiseJudgeSettings())
        self.rating: RatingJudgeSettings = sections.get("rating", RatingJudgeSettings())
        self.impressions: ImpressionJudgeSettings | None = sections.get("impressions")
        self._key = mix(seed_key(self.settings.seed, _TAG_PAIR), np.uint64(string_hash(model.model_id)))
        if self.impressions is not None:
            consistency, clusters = default_impression_maps()
            self._consistency = {**consistency, **self.impressions.consistency}
            self._clusters = {**clusters, **self.impressions.clusters}

    # -- impressions: the forced-choice content logit gains fidelity * c_a * z_{f,a}

    def content_rows(self, frame: pl.DataFrame) -> ContentRows:
        r"""The base judge's rows with :math:`\phi\, c_a\, z_{f,a}` added to the content logit."""
        image_codes, image_hash, scenario_codes, scenarios, content = super().content_rows(frame)
        if self.impressions is None:
            return image_codes, image_hash, scenario_codes, scenarios, content
        _, image_ids = factorize(frame.get_column("image_id"))
        identities = [self.context.images[str(i)].face_id for i in image_ids]
        attributes = [s.scenario_id for s in scenarios]
        z = latent_impressions(identities, attributes, self._clusters, self.impressions.factor_loading)
        weight = np.array([self.impressions.fidelity * self._consistency.get(a, 0.0) for a in attributes])
        return (
            image_codes,
            image_hash,
            scenario_codes,
            scenarios,
            content + (z * weight)[image_codes, scenario_codes],
        )

    # -- pairwise

    def _answer_keys(self, tag: int, *columns: Sequence[str | int]) -> U64:
        key = np.broadcast_to(mix(self._key, np.uint64(tag)), (len(columns[0]),))
        for column in columns:
            values = list(column)
            hashed = (
                np.asarray(values, dtype=np.uint64)
                if values and isinstance(values[0], int | np.integer)
                else string_hashes([str(v) for v in values])
            )
            key = mix(key, hashed)
        return key

    def judge_pairs(self, batch: pl.DataFrame) -> BackendAnswers:
        """Answer two-image trials (columns left_image_id, right_image_id, scenario_id, seed,
        cohort, left_group, right_group) with raw texts naming image 1 (left) or 2 (right)."""
        left, right = batch["left_image_id"].to_list(), batch["right_image_id"].to_list()
        p_left = pairwise_win_probability(
            self.pairwise,
            left,
            right,
            batch["left_group"].to_list(),
            batch["right_group"].to_list(),
            batch["cohort"].to_list(),
        )
        key = self._answer_keys(
            _TAG_PAIR, left, right, batch["scenario_id"].to_list(), batch["seed"].cast(pl.Int64).to_list()
        )
        valid = uniform(mix(key, _S_VALID)) >= self.pairwise.invalid_rate
        chose_left = uniform(mix(key, _S_CHOICE)) < p_left
        style = uniform(mix(key, _S_STYLE))
        texts = []
        for ok, is_left, u in zip(valid.tolist(), chose_left.tolist(), style.tolist(), strict=True):
            if not ok:
                texts.append(_pick(PAIRWISE_INVALID, u))
                continue
            template = _pick(PAIRWISE_STYLES, u)
            side = "left" if is_left else "right"
            texts.append(template.format(n="1" if is_left else "2", side=side, Side=side.capitalize()))
        latency = self.settings.latency_ms_mean * (0.5 + uniform(mix(key, _S_NOISE)))
        return BackendAnswers(response_text=texts, latency_ms=latency.tolist())

    # -- ratings

    def expected_rating(self, image_ids: Sequence[str], groups: Sequence[str]) -> F64:
        r"""Rating before noise and rounding: :math:`\mu + \kappa \lambda \ell_j` (the planted truth)."""
        r = self.rating
        return r.center + r.spread * r.fidelity * stimulus_latent(image_ids, groups, r.group_latent)

    def rate(self, batch: pl.DataFrame) -> BackendAnswers:
        """Answer 0-10 rating requests (columns image_id, attribute, seed, stimulus_group) in raw text."""
        r = self.rating
        ids = batch["image_id"].to_list()
        key = self._answer_keys(
            _TAG_RATE, ids, batch["attribute"].to_list(), batch["seed"].cast(pl.Int64).to_list()
        )
        noise = standard_normal(mix(key, _S_NOISE))
        value = np.clip(
            np.rint(self.expected_rating(ids, batch["stimulus_group"].to_list()) + r.noise_sd * noise),
            r.scale_min,
            r.scale_max,
        )
        valid = uniform(mix(key, _S_VALID)) >= r.invalid_rate
        style = uniform(mix(key, _S_STYLE))
        texts = []
        for ok, v, u in zip(valid.tolist(), value.tolist(), style.tolist(), strict=True):
            pool = RATING_STYLES if ok else RATING_INVALID
            texts.append(_pick(pool, u).format(r=int(v)))
        latency = self.settings.latency_ms_mean * (0.5 + uniform(mix(key, _S_CHOICE)))
        return BackendAnswers(response_text=texts, latency_ms=latency.tolist())


__all__ = ["SimulatedDesignBackend"]

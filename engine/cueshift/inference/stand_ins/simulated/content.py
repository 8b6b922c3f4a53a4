r"""The simulated judge's content terms: each row's logit without the ordering term.

:class:`SimulatedContent`, inherited by :class:`~.backend.SimulatedBackend`, turns a batch's
image and scenario ids into the planted model's terms (:mod:`.terms`): the face, demographic
and variation terms per image, the base logit and category scale per scenario, each row's
content logit (:data:`ContentRows`), the exact expected :math:`\phi` of a pair and the
probability of an invalid answer per row.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from cueshift._types import F64, I64, U64
from cueshift.inference.backends.base import Backend
from cueshift.inference.stand_ins.simulated.columns import StrColumn, factorize
from cueshift.inference.stand_ins.simulated.rng import string_hashes
from cueshift.inference.stand_ins.simulated.settings import SimulatedSettings
from cueshift.inference.stand_ins.simulated.terms import (
    category_scales,
    demographic_offset,
    face_effect,
    logistic,
    ordering_offset,
    scenario_base_logits,
    variation_shift,
)
from cueshift.study.scenarios import Scenario

#: (image codes, image hash per code, scenario codes, scenarios, content logit per row)
ContentRows = tuple[I64, U64, I64, list[Scenario], F64]


class SimulatedContent(Backend):
    """The per-image and per-scenario terms of the simulated judge (computed on the distinct ids
    of a batch); the subclass sets :attr:`settings`."""

    settings: SimulatedSettings

    def _image_terms(self, image_ids: Sequence[str]) -> tuple[F64, F64, U64]:
        """(logit offset without scenario, variation shift before κ, id hash) per image."""
        try:
            records = [self.context.images[image_id] for image_id in image_ids]
        except KeyError as exc:
            raise ValueError(f"image {exc.args[0]!r} is not in the study context") from None
        n = len(records)
        demographics: dict[str, StrColumn] = {
            "age": [r.age for r in records],
            "gender": [r.gender for r in records],
            "ethnicity": [r.ethnicity for r in records],
            "body_type": [r.body_type for r in records],
        }
        offset = face_effect(self.settings.seed, [r.face_id for r in records], self.settings.face_sd)
        offset = offset + demographic_offset(self.settings, demographics, n)
        shift = variation_shift(
            self.settings,
            [r.feature_key for r in records],
            [r.variation_value for r in records],
            demographics,
            n,
        )
        return offset, shift, string_hashes(list(image_ids))

    def content_rows(self, frame: pl.DataFrame) -> tuple[I64, U64, I64, list[Scenario], F64]:
        """Factorize image_id/scenario_id of ``frame``: (image codes, image hash per code,
        scenario codes, scenarios, content logit per row i.e. η without the ordering term)."""
        image_codes, image_ids = factorize(frame.get_column("image_id"))
        scenario_codes, scenario_ids = factorize(frame.get_column("scenario_id"))
        try:
            scenarios = [self.context.scenarios[str(s)] for s in scenario_ids]
        except KeyError as exc:
            raise ValueError(f"scenario {exc.args[0]!r} is not in the study context") from None
        image_offset, image_shift, image_hash = self._image_terms([str(i) for i in image_ids])
        scenario_base = scenario_base_logits(self.settings, [s.scenario_id for s in scenarios])
        scenario_scale = category_scales(self.settings, [s.category for s in scenarios])
        content = (
            scenario_base[scenario_codes]
            + image_offset[image_codes]
            + scenario_scale[scenario_codes] * image_shift[image_codes]
        )
        return image_codes, image_hash, scenario_codes, scenarios, content

    def expected_phi(self, pairs: pl.DataFrame, orderings: Sequence[int] = (1, 2, 3, 4)) -> F64:
        r"""The exact :math:`\mathbb{E}[\phi_s(x)]` of each (image_id, scenario_id) row of
        ``pairs``, from the context's metadata (see the module function :func:`expected_phi`)."""
        content = self.content_rows(pairs)[4]
        offsets = ordering_offset(self.settings, list(orderings))
        phi: F64 = np.mean(logistic(content[:, None] + offsets[None, :]), axis=1)
        return phi

    def _invalid_rates(self, frame: pl.DataFrame, image_codes: I64) -> F64 | float:
        """P(invalid) per row: ``invalid_rate``, or the entry of ``variation_invalid_rates`` of the
        row's variation ('<feature_key>=<value>' first, then '<value>')."""
        rates = self.settings.variation_invalid_rates
        if not rates:
            return self.settings.invalid_rate
        per_image = []
        for image_id in factorize(frame.get_column("image_id"))[1]:
            record = self.context.images[str(image_id)]
            keyed = rates.get(f"{record.feature_key}={record.variation_value}")
            fallback = rates.get(record.variation_value or "", self.settings.invalid_rate)
            per_image.append(fallback if keyed is None or record.variation_value is None else keyed)
        return np.asarray(per_image, dtype=np.float64)[image_codes]


__all__ = ["ContentRows", "SimulatedContent"]

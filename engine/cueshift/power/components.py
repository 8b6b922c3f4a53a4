r"""Variance components and anticipated effects of a StylisticBias study, on the φ scale.

The model behind every plan (faces and scenarios both samples: Judd, Westfall & Kenny 2012;
Westfall, Kenny & Judd 2014). For model :math:`m`, face :math:`f`, variation value :math:`v`
and scenario :math:`s`, the observed shift (seed 000 Eq. 2) is

.. math::

    \Delta_{fvs} = \beta_v + \delta_{vs} + b_{fv} + c_{fvs} + \varepsilon_{fvs}, \qquad
    \varepsilon_{fvs} = e_{x_v s} - e_{x_b s},

with the attribute's effect :math:`\beta_v` (its SBS), the scenario deviation
:math:`\delta_{vs} \sim (0, \tau^2)` (**scenario**), the face's own slope
:math:`b_{fv} \sim (0, \sigma_F^2)` (**face**), the face × scenario residual
:math:`c_{fvs} \sim (0, \sigma_{FS}^2)` (**face × scenario**) and the measurement error of the
two φ: binomial :math:`\operatorname{Var}(e) = \overline{pq}/n` with :math:`n` valid answers
(**sampling**; zero in score mode) plus :math:`\sigma_e^2` (**serving** noise, from the
noise-floor placebos). The face-level test of seed 000 §4.4 averages a face's shifts over the
:math:`S` scenarios first, so

.. math::

    \operatorname{Var}(\bar\Delta_{fv}) = \sigma_F^2 + \frac{\sigma_{FS}^2
        + 2(\overline{pq}/n + \sigma_e^2)}{S} .

Base φ (the demographic tests of Table 9) vary between faces of one group by
:math:`\sigma_U^2` (**base face**, per dimension) plus the same measurement error.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from cueshift.power.protocol import Mode


@dataclass(frozen=True)
class Components:
    """Variance components of one model (φ scale; see the module docstring).

    Attributes
    ----------
    face, scenario, face_scenario
        :math:`\\sigma_F^2`, :math:`\\tau^2`, :math:`\\sigma_{FS}^2` of the shifts Δ.
    base_face
        ``dimension -> ``:math:`\\sigma_U^2`: variance of base φ between faces of one group
        within a scenario, measurement error removed.
    pq
        :math:`\\overline{pq}`: mean over cells of :math:`p(1-p)` per answer (binomial term).
    serving
        :math:`\\sigma_e^2`: serving noise of one φ (0 when not measured).
    invalid_rate
        Share of answers that are invalid.
    """

    face: float
    scenario: float
    face_scenario: float
    base_face: dict[str, float]
    pq: float
    serving: float = 0.0
    invalid_rate: float = 0.0

    def phi_error(self, prompts: int, mode: Mode) -> float:
        """Measurement variance of one φ: :math:`\\overline{pq}/n + \\sigma_e^2` (scored: no pq term)."""
        valid = prompts * (1.0 - self.invalid_rate)
        return (0.0 if mode == "score" else self.pq / max(valid, 1e-12)) + self.serving

    def face_mean_variance(self, scenarios: int, prompts: int, mode: Mode) -> float:
        """:math:`\\operatorname{Var}(\\bar\\Delta_{fv})` over ``scenarios``, ``prompts`` answers per φ."""
        error = 2.0 * self.phi_error(prompts, mode)
        return self.face + (self.face_scenario + error) / scenarios

    def base_variance(self, dimension: str, prompts: int, mode: Mode) -> float:
        """Variance of one base φ within a demographic group of ``dimension``."""
        return self.base_face.get(dimension, 0.0) + self.phi_error(prompts, mode)


@dataclass(frozen=True)
class Effects:
    """Anticipated effects of one model: what a plan's power is computed for.

    Attributes
    ----------
    attribute
        ``variation_value -> β_v`` (its SBS).
    cell
        ``(variation_value, dimension, group) -> `` mean Δ of the group's faces (Table 11 cell).
    vs
        ``dimension -> `` VS (seed 000 Eq. 3, measurement error removed).
    """

    attribute: dict[str, float]
    cell: dict[tuple[str, str, str], float] = field(default_factory=dict)
    vs: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class ModelInputs:
    """What a plan knows of one model: its components and effects, and where they come from."""

    model_id: str
    components: Components
    effects: Effects
    source: str


@dataclass(frozen=True)
class PlanInputs:
    """Every model's inputs, the cross-model covariance of face slopes, and where they come from.

    Attributes
    ----------
    models
        ``model_id -> ModelInputs`` for every planned model.
    face_covariance
        ``(model_a, model_b) -> `` covariance of the two models' per-face mean shifts
        :math:`\\operatorname{Cov}(\\bar\\Delta_{fv}^{a}, \\bar\\Delta_{fv}^{b})` (a pilot with both);
        a missing pair is taken as uncorrelated for model differences and as perfectly correlated
        when models are pooled (each the conservative choice).
    source
        One line for the reader: the pilot, or the simulated judge's documented defaults.
    """

    models: dict[str, ModelInputs]
    face_covariance: dict[tuple[str, str], float] = field(default_factory=dict)
    source: str = ""

    def covariance(self, a: str, b: str) -> float | None:
        return self.face_covariance.get((a, b), self.face_covariance.get((b, a)))

    def restricted(self, models: tuple[str, ...]) -> PlanInputs:
        """The inputs of ``models`` only (a model the inputs lack takes the mean of the others)."""
        known = list(self.models.values())
        out: dict[str, ModelInputs] = {}
        for model_id in models:
            out[model_id] = self.models.get(model_id) or replace(
                mean_inputs(known),
                model_id=model_id,
                source=f"{known[0].source} (mean of the pilot's models)",
            )
        return replace(self, models=out)


def mean_inputs(inputs: list[ModelInputs]) -> ModelInputs:
    """The component-wise mean of several models' inputs (for a planned model no pilot judged)."""
    comps = [i.components for i in inputs]

    def avg(values: list[float]) -> float:
        return float(np.mean(values))

    dims = sorted({d for c in comps for d in c.base_face})
    components = Components(
        face=avg([c.face for c in comps]),
        scenario=avg([c.scenario for c in comps]),
        face_scenario=avg([c.face_scenario for c in comps]),
        base_face={d: avg([c.base_face.get(d, 0.0) for c in comps]) for d in dims},
        pq=avg([c.pq for c in comps]),
        serving=avg([c.serving for c in comps]),
        invalid_rate=avg([c.invalid_rate for c in comps]),
    )
    effects = [i.effects for i in inputs]
    attributes = sorted({k for e in effects for k in e.attribute})
    cells = sorted({k for e in effects for k in e.cell})
    vs = sorted({k for e in effects for k in e.vs})
    return ModelInputs(
        inputs[0].model_id,
        components,
        Effects(
            {k: avg([e.attribute[k] for e in effects if k in e.attribute]) for k in attributes},
            {k: avg([e.cell[k] for e in effects if k in e.cell]) for k in cells},
            {k: avg([e.vs[k] for e in effects if k in e.vs]) for k in vs},
        ),
        inputs[0].source,
    )


__all__ = ["Components", "Effects", "ModelInputs", "PlanInputs", "mean_inputs"]

r"""The simulated judge: a seeded, biased forced-choice responder with planted effects.

It is the judge of the embedded default study and the ground truth against which the
statistics are validated, so every planted quantity is computable exactly. It answers
in raw text, the way a real model does, so every run goes through
:mod:`cueshift.inference.parser`.

Generative model
----------------
For a prompt showing image :math:`x` (identity :math:`f`, demographics :math:`g`,
variation :math:`v`, or none for a base image) under scenario :math:`s` (category
:math:`c(s)`) and ordering :math:`o`, the logit of naming the *favorable* descriptor is

.. math::

    \eta = \beta_s + u_f + \sum_{A} \delta_{A, g_A}
           + \kappa_{c(s)} \Big( \theta_v + \sum_{k} \gamma_k \,[v = v_k,\ g_{A_k} = h_k] \Big)
           + \lambda \,\sigma^{\text{letter}}_o + \pi \,\sigma^{\text{first}}_o ,

where :math:`\beta_s` is the scenario base logit, :math:`u_f \sim N(0, \tau^2)` the
identity's random intercept (``face_sd`` :math:`=\tau`, drawn deterministically from
``(seed, face_id)``), :math:`\delta` the demographic effects, :math:`\theta_v` the
variation effect, :math:`\gamma_k` the group-specific extra shifts, :math:`\kappa` the
category scale (semantic alignment), :math:`\lambda` the letter bias with
:math:`\sigma^{\text{letter}}_o = +1` when the favorable descriptor carries letter
(a) and :math:`-1` otherwise, and :math:`\pi` the first-position bias with
:math:`\sigma^{\text{first}}_o = +1` when the favorable descriptor is written first.
Each prompt is answered independently:

.. math::

    \text{invalid} \sim \text{Bernoulli}(q), \qquad
    r \mid \text{valid} \sim \text{Bernoulli}\big(\operatorname{logistic}(\eta)\big),

with :math:`q` = ``invalid_rate`` independent of the content (or, for the images of a
variation listed in ``variation_invalid_rates``, that variation's rate: a cue that raises
refusals; still independent of the answer, so the truth below holds per image). There is no separate
temperature: it is implicit in the size of the logits. The answer's randomness is a
deterministic hash of ``(settings.seed, model_id, image_id, scenario_id, ordering,
seed)``, so re-running, resuming or re-batching yields identical answers.

Exact truth
-----------
Because invalid answers are independent of content and of the ordering, for a balanced
design (each ordering asked equally often) the expectation of seed 000 Eq. (1) given at
least one valid answer is exactly

.. math::

    \mathbb{E}[\phi_s(x) \mid n_s(x) \ge 1] = \frac{1}{|O|} \sum_{o \in O}
        \operatorname{logistic}(\eta_{x,s,o})

(:func:`expected_phi`): conditional on which prompts are valid, :math:`\phi` is the mean
of the valid prompts' probabilities, and every subset of a given size is equally likely.
The population-level shift of a variation (identity integrated out,
:func:`population_delta`) is

.. math::

    \Delta_s(v \mid g) = \int \frac{1}{|O|}\sum_{o}\Big[
        \operatorname{logistic}(\eta^{v}_{s,o,g} + u)
        - \operatorname{logistic}(\eta^{b}_{s,o,g} + u)\Big] \, N(u; 0, \tau^2)\, du .

Modules
-------
:mod:`.rng`
    The counter-based hash RNG (every draw a pure function of its key).
:mod:`.defaults`
    The default planted effects, answer styles and invalid answers.
:mod:`.settings`
    :class:`SimulatedSettings` (``[models.settings]``) and its validation.
:mod:`.terms`
    The terms of :math:`\eta` per row (face intercept, demographics, variation, ordering).
:mod:`.truth`
    The exact planted quantities: :func:`favorable_logit`, :func:`expected_phi`, :func:`population_delta`.
:mod:`.backend`
    :class:`SimulatedBackend`, which draws the answers.
"""

from __future__ import annotations

from cueshift.inference.stand_ins.simulated.backend import SimulatedBackend, SimulatedDraws
from cueshift.inference.stand_ins.simulated.defaults import (
    DEFAULT_ANSWER_STYLES,
    DEFAULT_CATEGORY_SCALE,
    DEFAULT_DEMOGRAPHIC_EFFECTS,
    DEFAULT_INVALID_MIX,
    DEFAULT_VARIATION_EFFECTS,
    INVALID_TEXTS,
)
from cueshift.inference.stand_ins.simulated.settings import (
    GroupVariationEffect,
    SimulatedSettings,
    parse_settings,
)
from cueshift.inference.stand_ins.simulated.terms import face_effect, logistic, scenario_base_logits
from cueshift.inference.stand_ins.simulated.truth import (
    ContentColumns,
    expected_phi,
    favorable_logit,
    favorable_probability,
    population_delta,
)

__all__ = [
    "DEFAULT_ANSWER_STYLES",
    "DEFAULT_CATEGORY_SCALE",
    "DEFAULT_DEMOGRAPHIC_EFFECTS",
    "DEFAULT_INVALID_MIX",
    "DEFAULT_VARIATION_EFFECTS",
    "ContentColumns",
    "INVALID_TEXTS",
    "GroupVariationEffect",
    "SimulatedBackend",
    "SimulatedDraws",
    "SimulatedSettings",
    "expected_phi",
    "face_effect",
    "favorable_logit",
    "favorable_probability",
    "logistic",
    "parse_settings",
    "population_delta",
    "scenario_base_logits",
]

r"""The generative model of a planned StylisticBias study, as arrays both plan methods share.

For model :math:`m`, face :math:`f`, value :math:`v`, scenario :math:`s` (φ scale):

.. math::

    p^{b}_{mfs} = p_{0m} + u_{mfs}, \qquad
    p^{v}_{mfvs} = p^{b}_{mfs} + \beta_{mv} + \gamma_{mvf} + \delta_{mvs} + b_{mfv} + c_{mfvs},

:math:`u \sim N(0, \sigma_U^2)`, :math:`\gamma_{mvf} = \sum_d \gamma'_{mvd}[g_d(f)]` the face's
demographic deviations (Table 11 cells less :math:`\beta`, centred over the faces that get the
value), :math:`\delta_{mvs}` fixed scenario deviations (they average to zero over the study's
scenarios), :math:`b_{\cdot fv} \sim N(0, \Sigma_v)` with
:math:`\Sigma_{v,mm'} = \rho_{mm'}\sigma_{b,mv}\sigma_{b,m'v}`, :math:`\sigma^2_{b,mv} = \sigma^2_{F,m}
- \operatorname{var}_f\gamma_{mvf}` (the face component already holds the demographic part) and
:math:`c \sim N(0, \sigma_{FS}^2)`. :math:`p_{0m}` solves
:math:`p_0(1-p_0) = \overline{pq} + \sigma_U^2`, so :math:`E[p(1-p)] = \overline{pq}` on base images.
A φ is :math:`\operatorname{Binomial}(n_{\text{valid}}, p)/n_{\text{valid}}` with
:math:`n_{\text{valid}} \sim \operatorname{Binomial}(n, 1 - q)` (sampling) or :math:`p` itself
(score), plus :math:`N(0, \sigma_e^2)` serving noise.

The analytic method (:mod:`cueshift.power.families`) reads the moments of the per-face values off
these arrays; the simulation (:mod:`cueshift.power.simulate`) draws from them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl
from numpy.typing import NDArray

from cueshift._types import F64
from cueshift.power.components import PlanInputs
from cueshift.power.protocol import DIMENSIONS, Protocol

#: Correlation of two models' face slopes when no pilot judged both (a middle assumption; a
#: pilot of two or more models measures it).
DEFAULT_MODEL_CORRELATION = 0.5
#: Seed of the fixed parts of the model (scenario deviations).
FIXED_SEED = 12_345


@dataclass(frozen=True)
class StudyModel:
    """Arrays of the generative model (module docstring); ``M`` models, ``V`` values, ``F`` faces."""

    protocol: Protocol
    models: tuple[str, ...]
    values: list[str]
    applies: NDArray[np.bool_]  # F × V
    beta: F64  # M × V
    gamma: F64  # M × V × F (NaN where the value does not apply)
    slope_sd: F64  # M × V
    slope_corr: F64  # M × M
    fs_sd: F64  # M
    scenario_dev: F64  # M × V × S
    p0: F64  # M
    base_sd: F64  # M
    prompts: NDArray[np.int64]  # M
    score: NDArray[np.bool_]  # M
    invalid: F64  # M
    serving_sd: F64  # M
    phi_error: F64  # M: measurement variance of one φ
    group_shift: dict[str, F64]  # dimension -> M × F base shift (VS); NaN rows: no VS for the model
    base_within: dict[str, F64]  # dimension -> M within-group variance of a base φ (error included)

    @property
    def n_faces(self) -> int:
        return int(self.applies.shape[0])

    @property
    def scenarios(self) -> int:
        return self.protocol.scenarios


def group_levels(protocol: Protocol, dimension: str) -> tuple[list[str], NDArray[np.int64]]:
    """The groups of ``dimension`` among the planned faces and each face's group code (−1: none)."""
    labels = protocol.faces[dimension].to_list()
    groups = sorted({g for g in labels if g is not None})
    codes = np.array([groups.index(g) if g is not None else -1 for g in labels], dtype=np.int64)
    return groups, codes


def spaced_effects(k: int, vs: float) -> F64:
    """``k`` equally spaced group effects whose population std (unweighted, ddof 0) is ``vs``."""
    z = np.linspace(-1.0, 1.0, k) if k > 1 else np.zeros(1)
    std = z.std()
    return np.asarray(z / std * vs if std > 0 else z, dtype=np.float64)


def _gamma(protocol: Protocol, values: list[str], cell: dict[tuple[str, str, str], float], beta: F64) -> F64:
    applies = protocol.value_faces()
    gamma = np.zeros((len(values), protocol.n_faces))
    for dim in DIMENSIONS:
        groups, codes = group_levels(protocol, dim)
        for i, v in enumerate(values):
            raw = np.array([cell.get((v, dim, g), np.nan) - beta[i] for g in groups])
            raw = np.where(np.isfinite(raw), raw, 0.0)
            if not groups:
                continue
            face = np.where(codes >= 0, raw[np.maximum(codes, 0)], 0.0)
            member = applies[:, i] & (codes >= 0)
            if member.any():
                face = face - face[member].mean()
            gamma[i] += face
    return np.where(applies.T, gamma, np.nan)


def study_model(protocol: Protocol, inputs: PlanInputs, *, seed: int = FIXED_SEED) -> StudyModel:
    """The generative model of ``protocol`` with the components and effects of ``inputs``
    (``seed`` draws its fixed parts, the scenario deviations)."""
    models = protocol.models
    inputs = inputs.restricted(models)
    values = protocol.values["variation_value"].to_list()
    n_m, n_v, n_s = len(models), len(values), protocol.scenarios
    applies = protocol.value_faces()
    rng = np.random.default_rng(seed)
    beta, gamma, slope_sd = np.zeros((n_m, n_v)), np.zeros((n_m, n_v, protocol.n_faces)), np.zeros((n_m, n_v))
    fs_sd, p0, base_sd, invalid, serving, error = (np.zeros(n_m) for _ in range(6))
    prompts = np.array([protocol.prompts_per_phi(m) for m in models], dtype=np.int64)
    score = np.array([protocol.modes[m] == "score" for m in models], dtype=bool)
    scenario_dev = np.zeros((n_m, n_v, n_s))
    group_shift: dict[str, F64] = {d: np.full((n_m, protocol.n_faces), np.nan) for d in DIMENSIONS}
    base_within: dict[str, F64] = {d: np.full(n_m, np.nan) for d in DIMENSIONS}
    for j, model_id in enumerate(models):
        mi = inputs.models[model_id]
        comp, eff = mi.components, mi.effects
        beta[j] = [eff.attribute.get(v, 0.0) for v in values]
        gamma[j] = _gamma(protocol, values, eff.cell, beta[j])
        with np.errstate(invalid="ignore"):
            spread = np.nanvar(np.where(applies.T, gamma[j], np.nan), axis=1)
        slope_sd[j] = np.sqrt(np.maximum(comp.face - np.nan_to_num(spread), 0.0))
        fs_sd[j] = np.sqrt(comp.face_scenario)
        dev = rng.normal(0.0, np.sqrt(comp.scenario), size=(n_v, n_s))
        scenario_dev[j] = dev - dev.mean(axis=1, keepdims=True)
        sigma_u2 = min(comp.base_face.values()) if comp.base_face else 0.0
        base_sd[j] = np.sqrt(sigma_u2)
        p0[j] = 0.5 * (1.0 + np.sqrt(max(1.0 - 4.0 * (comp.pq + sigma_u2), 0.0)))
        invalid[j], serving[j] = comp.invalid_rate, np.sqrt(comp.serving)
        error[j] = comp.phi_error(int(prompts[j]), protocol.modes[model_id])
        for dim in DIMENSIONS:
            vs = eff.vs.get(dim)
            groups, codes = group_levels(protocol, dim)
            if vs is None or len(groups) < 2:
                continue
            shift = spaced_effects(len(groups), vs)
            group_shift[dim][j] = np.where(codes >= 0, shift[np.maximum(codes, 0)], np.nan)
            base_within[dim][j] = comp.base_variance(dim, int(prompts[j]), protocol.modes[model_id])
    corr = np.eye(n_m)
    for a in range(n_m):
        for b in range(a + 1, n_m):
            cov = inputs.covariance(models[a], models[b])
            sd_a, sd_b = (np.sqrt(inputs.models[m].components.face) for m in (models[a], models[b]))
            rho = DEFAULT_MODEL_CORRELATION if cov is None or sd_a * sd_b == 0 else cov / (sd_a * sd_b)
            corr[a, b] = corr[b, a] = float(np.clip(rho, -0.99, 0.99))
    return StudyModel(
        protocol,
        models,
        values,
        applies,
        beta,
        gamma,
        slope_sd,
        corr,
        fs_sd,
        scenario_dev,
        p0,
        base_sd,
        prompts,
        score,
        invalid,
        serving,
        error,
        group_shift,
        base_within,
    )


def table11_cells(protocol: Protocol) -> pl.DataFrame:
    """Table 11's cells: every value × demographic group with a face that gets the value
    (seed 000: 437 at paper scale)."""
    applies = protocol.value_faces()
    rows = []
    for dim in DIMENSIONS:
        groups, codes = group_levels(protocol, dim)
        for gi, g in enumerate(groups):
            for vi, v in enumerate(protocol.values["variation_value"].to_list()):
                n = int((applies[:, vi] & (codes == gi)).sum())
                if n:
                    rows.append((v, vi, dim, g, gi, n))
    return pl.DataFrame(
        rows,
        schema=["variation_value", "value_index", "dimension", "group", "group_index", "n"],
        orient="row",
    )


__all__ = [
    "DEFAULT_MODEL_CORRELATION",
    "StudyModel",
    "group_levels",
    "spaced_effects",
    "study_model",
    "table11_cells",
]

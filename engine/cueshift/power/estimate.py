r"""Variance components and effects of one model estimated from a study's shifts and base φ.

The shift components come from :func:`cueshift.power.anova.pooled_two_way` (method of moments).
Base φ: within each demographic dimension, the pooled variance of base φ around their
group × scenario means, :math:`\hat\sigma_W^2`, less the mean binomial variance gives
:math:`\hat\sigma_U^2`. VS (seed 000 Eq. 3) is biased upward by noisy group means; per scenario,

.. math::

    \widehat{\mathrm{VS}}_s^2 = \max\Big(0,\ \operatorname{var}_g \bar\phi_{gs}
        - \frac{k-1}{k}\,\frac{1}{k}\sum_g \frac{\hat\sigma_W^2}{n_g}\Big),

since :math:`E[\frac1k\sum_g(\bar y_g - \bar{\bar y})^2] = \frac1k\sum_g(\mu_g-\bar\mu)^2
+ \frac{k-1}{k}\frac1k\sum_g \operatorname{Var}\bar y_g`; VS is the mean over scenarios of
:math:`\widehat{\mathrm{VS}}_s`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from cueshift._types import F64
from cueshift.power.anova import (
    ShiftCube,
    jackknife_interval,
    leave_one_out,
    mls_interval,
    pooled_two_way,
)
from cueshift.power.components import Components, Effects, ModelInputs
from cueshift.power.cubes import BaseCube, face_means
from cueshift.power.protocol import DIMENSIONS


@dataclass(frozen=True)
class ModelEstimate:
    """A model's plan inputs and its tidy component rows (estimate and interval of each component)."""

    inputs: ModelInputs
    rows: list[dict[str, Any]]


def within_group(base: BaseCube, dimension: str, weights: F64 | None = None) -> tuple[F64, F64, F64]:
    """Pooled within-group variance of base φ for ``dimension``, its mean measurement variance, and
    the group sizes (under face multiplicities ``weights``, B × F; None: the data)."""
    labels = base.labels[dimension]
    keep = np.isfinite(base.phi).all(axis=1) & np.array([lab is not None for lab in labels])
    y, e, lab = base.phi[keep], base.error[keep].mean(axis=1), labels[keep]
    w = np.ones((1, y.shape[0])) if weights is None else np.atleast_2d(weights)[:, keep]
    groups = sorted(set(lab.tolist()))
    n_scen = y.shape[1]
    ss = w @ (y**2).sum(axis=1)
    sizes = np.zeros((w.shape[0], len(groups)))
    for j, g in enumerate(groups):
        member = lab == g
        wg = w[:, member]
        size = wg.sum(axis=1)
        sizes[:, j] = size
        with np.errstate(invalid="ignore", divide="ignore"):
            means = (wg @ y[member]) / size[:, None]
        ss -= size * np.nansum(means**2, axis=1)
    total = w.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        var = ss / ((total - len(groups)) * n_scen)
        err = (w @ e) / total
    return var, err, sizes


def variation_strength(base: BaseCube, dimension: str) -> float:
    """VS of ``dimension`` with the upward bias of noisy group means removed (module docstring)."""
    labels = base.labels[dimension]
    keep = np.array([lab is not None for lab in labels])
    groups = sorted(set(labels[keep].tolist()))
    if len(groups) < 2:
        return float("nan")
    sigma2, _, _ = within_group(base, dimension)
    per_scenario = []
    for s in range(base.phi.shape[1]):
        col = base.phi[:, s]
        means, sizes = [], []
        for g in groups:
            vals = col[keep & (labels == g) & np.isfinite(col)]
            if vals.size:
                means.append(vals.mean())
                sizes.append(vals.size)
        if len(means) < 2:
            continue
        k = len(means)
        noise = (k - 1) / k * float(np.mean(sigma2[0] / np.array(sizes)))
        per_scenario.append(np.sqrt(max(float(np.var(means)) - noise, 0.0)))
    return float(np.mean(per_scenario)) if per_scenario else float("nan")


def _effects(cube: ShiftCube, base: BaseCube, dimensions: tuple[str, ...]) -> Effects:
    means = face_means(cube)
    attribute = {
        v: float(np.nanmean(means[i])) for i, v in enumerate(cube.values) if np.isfinite(means[i]).any()
    }
    cell: dict[tuple[str, str, str], float] = {}
    for dim in dimensions:
        labels = base.labels[dim]
        for g in sorted({lab for lab in labels.tolist() if lab is not None}):
            member = labels == g
            for i, v in enumerate(cube.values):
                vals = means[i][member]
                vals = vals[np.isfinite(vals)]
                if vals.size:
                    cell[(v, dim, g)] = float(vals.mean())
    vs = {dim: variation_strength(base, dim) for dim in dimensions}
    return Effects(attribute, cell, {k: v for k, v in vs.items() if np.isfinite(v)})


def estimate_model(
    model_id: str,
    cube: ShiftCube,
    base: BaseCube,
    *,
    pq: float,
    invalid_rate: float,
    serving: float,
    source: str,
    exact: bool = False,
    level: float = 0.95,
) -> ModelEstimate:
    """Estimate one model's components and effects; ``exact`` data (a noise-free truth) get no intervals.

    ``cube`` and ``base`` must share their face axis (one leave-one-face-out jackknife weights
    both); the intervals at ``level`` draw nothing at random, so there is no seed to pass.
    """
    point = pooled_two_way(cube)
    dims = tuple(d for d in DIMENSIONS if any(lab is not None for lab in base.labels[d]))
    base_face = {}
    base_boot: dict[str, F64] = {}
    weights = None if exact else leave_one_out(base.phi.shape[0])
    for dim in dims:
        var, err, _ = within_group(base, dim)
        base_face[dim] = max(float(var[0] - err[0]), 0.0)
        if weights is not None:
            bvar, berr, _ = within_group(base, dim, weights)
            base_boot[dim] = np.maximum(bvar - berr, 0.0)
    components = Components(
        face=float(point.face[0]),
        scenario=float(point.scenario[0]),
        face_scenario=float(point.face_scenario[0]),
        base_face=base_face,
        pq=pq,
        serving=serving,
        invalid_rate=invalid_rate,
    )
    intervals: dict[str, tuple[float, float]] = {}
    if weights is not None:
        boot = pooled_two_way(cube, weights)  # the cube and the base share their face axis
        intervals["face"] = jackknife_interval(components.face, boot.face, level)
        intervals["face_scenario"] = jackknife_interval(components.face_scenario, boot.face_scenario, level)
        intervals["scenario"] = mls_interval(
            float(point.ms_scenario[0]),
            float(point.df_scenario[0]),
            float(point.ms_residual[0]),
            float(point.df_residual[0]),
            1.0 / float(point.faces[0]),
            1.0 / float(point.faces[0]),
            level,
        )
        for dim, reps in base_boot.items():
            intervals[f"base_face:{dim}"] = jackknife_interval(base_face[dim], reps, level)
    estimates = {
        "face": components.face,
        "scenario": components.scenario,
        "face_scenario": components.face_scenario,
        **{f"base_face:{d}": v for d, v in base_face.items()},
        "pq": pq,
        "serving": serving,
        "invalid_rate": invalid_rate,
    }
    nan2 = (float("nan"), float("nan"))
    rows = [
        {
            "model_id": model_id,
            "component": name,
            "estimate": value,
            "ci_low": intervals.get(name, nan2)[0],
            "ci_high": intervals.get(name, nan2)[1],
            "source": source,
        }
        for name, value in estimates.items()
    ]
    inputs = ModelInputs(model_id, components, _effects(cube, base, dims), source)
    return ModelEstimate(inputs, rows)


__all__ = ["ModelEstimate", "estimate_model", "variation_strength", "within_group"]

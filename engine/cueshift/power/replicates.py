"""Simulated studies in batches: each replicate's random numbers drawn in its own order, then
every φ and per-face mean of the batch computed in one kernel call per model.

A simulated study pulls its random numbers from the generator in a fixed order (the face slopes;
per model the base probabilities, the base φ's uniforms and serving noise, the shifts' normals,
uniforms and serving noise; then the scenario-test draws). :func:`draw_batch` pulls them replicate
by replicate in exactly that order, so a batch gives the numbers the replicates one at a time would
(``tests/power/test_same_code.py``), but runs the parallel kernels of :mod:`.draws` and
:mod:`.face_mean_draws` once per batch instead of once per replicate: a kernel call costs a thread
start and a barrier, which a loaded machine stretches to milliseconds (``benchmarks/bench_plan.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from cueshift._types import F64
from cueshift.power.draws import batch_phi
from cueshift.power.face_mean_draws import batch_face_means, fill_shift_draws
from cueshift.power.model import StudyModel, group_levels

#: Bytes of random numbers a batch may hold (the batch size follows from one replicate's).
BATCH_BYTES = 48 * 2**20


def correlated_slopes(sm: StudyModel, rng: np.random.Generator) -> F64:
    """Face slopes ``b`` of every model (M × V × F), correlated across models by ``slope_corr``."""
    n_m, n_v, n_f = sm.beta.shape[0], len(sm.values), sm.n_faces
    chol = np.linalg.cholesky(sm.slope_corr)
    z = rng.standard_normal((n_v, n_f, n_m)) @ chol.T
    return np.asarray(np.moveaxis(z, 2, 0) * sm.slope_sd[:, :, None], dtype=np.float64)


def batch_size(sm: StudyModel, n_sims: int) -> int:
    """Replicates per batch: as many as :data:`BATCH_BYTES` holds (at least 1, at most ``n_sims``)."""
    cells = len(sm.models) * sm.n_faces * sm.scenarios * (len(sm.values) + 1)
    return max(1, min(n_sims, BATCH_BYTES // (8 * 4 * cells)))


@dataclass(frozen=True)
class ScenarioDraws:
    """One scenario-test family's φ over a batch: model ``j``, grouping ``dim``, its groups, each
    kept face's group code and the φ (``R × kept faces × scenarios``)."""

    dim: str
    j: int
    groups: list[str]
    codes: NDArray[np.int64]
    phi: F64


@dataclass(frozen=True)
class Batch:
    """A batch of simulated studies: per-face mean shifts (``R × M × V × F``) and the scenario-test φ."""

    means: F64
    scenario: list[ScenarioDraws]


def _phi_draws(sm: StudyModel, j: int, shape: tuple[int, ...], rng: np.random.Generator) -> tuple[F64, F64]:
    """The random numbers :func:`cueshift.power.study_draws.draw_phi` pulls for ``shape`` φ, in its
    order: two uniforms per φ (none scored), then serving noise (none without)."""
    size = int(np.prod(shape))
    u = np.empty((2, 0)) if sm.score[j] else rng.random((2, size))
    serving = rng.normal(0.0, sm.serving_sd[j], size=shape) if sm.serving_sd[j] > 0 else np.empty(0)
    return u, serving


def _phi(sm: StudyModel, j: int, p: F64, u: F64, serving: F64) -> F64:
    """φ of model ``j`` at probabilities ``p`` (``R × ...``) from each replicate's :func:`_phi_draws`
    (stacked: ``u`` is ``R × 2 × ...``, ``serving`` ``R × ...``)."""
    p = np.clip(p, 0.0, 1.0)
    phi = p.copy() if sm.score[j] else batch_phi(p, int(sm.prompts[j]), float(sm.invalid[j]), u)
    return phi + serving.reshape(p.shape) if sm.serving_sd[j] > 0 else phi


@dataclass(frozen=True)
class _Buffers:
    """One batch's random numbers per model (leading axes ``M × R``), filled replicate by replicate."""

    p_base: F64
    u_base: F64
    serving_base: F64
    offsets: F64
    z: F64
    u: F64
    serving: F64

    @classmethod
    def empty(cls, sm: StudyModel, reps: int) -> _Buffers:
        n_m, n_f, n_s = len(sm.models), sm.n_faces, sm.scenarios
        size = len(sm.values) * n_f * n_s
        scored, noisy = bool(sm.score.all()), bool((sm.serving_sd > 0).any())
        return cls(
            p_base=np.empty((n_m, reps, n_f, n_s)),
            u_base=np.empty((n_m, reps, 2, 0 if scored else n_f * n_s)),
            serving_base=np.empty((n_m, reps, n_f * n_s if noisy else 0)),
            offsets=np.empty((n_m, reps, len(sm.values), n_f)),
            z=np.empty((n_m, reps, size)),
            u=np.empty((n_m, reps, 0 if scored else 2 * size)),
            serving=np.empty((n_m, reps, size if noisy else 0)),
        )

    def fill(self, sm: StudyModel, rng: np.random.Generator, r: int) -> None:
        """Replicate ``r``'s draws (slopes, then per model: base, base φ, shifts), in draw order."""
        slopes = correlated_slopes(sm, rng)
        n_f, n_s = sm.n_faces, sm.scenarios
        for j in range(len(sm.models)):
            self.p_base[j, r] = sm.p0[j] + rng.normal(0.0, sm.base_sd[j], size=(n_f, n_s))
            if not sm.score[j]:
                rng.random(out=self.u_base[j, r])
            if sm.serving_sd[j] > 0:
                self.serving_base[j, r] = rng.normal(0.0, sm.serving_sd[j], size=n_f * n_s)
            self.offsets[j, r] = sm.beta[j][:, None] + np.nan_to_num(sm.gamma[j]) + slopes[j]
            fill_shift_draws(
                rng,
                self.z[j, r],
                self.u[j, r],
                self.serving[j, r],
                scored=bool(sm.score[j]),
                serving_sd=float(sm.serving_sd[j]),
            )


def draw_batch(sm: StudyModel, rng: np.random.Generator, reps: int, *, scenario: bool = False) -> Batch:
    """``reps`` simulated studies of ``sm`` (module docstring); ``scenario``: with the φ of the
    scenario tests (:func:`cueshift.power.simulate.simulated_power`'s ``vs_scenario``)."""
    buffers = _Buffers.empty(sm, reps)
    groups = _scenario_groups(sm) if scenario else []
    scenario_draws: list[list[tuple[F64, F64, F64]]] = [[] for _ in groups]
    for r in range(reps):
        buffers.fill(sm, rng, r)
        for g, (dim, j, _, codes, pure) in enumerate(groups):
            mean = sm.p0[j] + sm.group_shift[dim][j][codes >= 0, None]
            p = mean + rng.normal(0.0, np.sqrt(pure), (int((codes >= 0).sum()), sm.scenarios))
            scenario_draws[g].append((p, *_phi_draws(sm, j, p.shape, rng)))
    means = np.empty((reps, len(sm.models), len(sm.values), sm.n_faces))
    for j in range(len(sm.models)):
        b = buffers
        phi_base = _phi(sm, j, b.p_base[j], b.u_base[j], b.serving_base[j])
        means[:, j] = batch_face_means(
            phi_base,
            b.p_base[j],
            b.offsets[j],
            sm.scenario_dev[j],
            float(sm.fs_sd[j]),
            (b.z[j], b.u[j], b.serving[j] if sm.serving_sd[j] > 0 else b.serving[j, :, :0]),
            n=int(sm.prompts[j]),
            invalid_rate=float(sm.invalid[j]),
            scored=bool(sm.score[j]),
            serving_sd=float(sm.serving_sd[j]),
            applies=sm.applies,
        )
    drawn = [
        ScenarioDraws(dim, j, names, codes[codes >= 0], _phi(sm, j, *_stacked(scenario_draws[g])))
        for g, (dim, j, names, codes, _) in enumerate(groups)
    ]
    return Batch(means, drawn)


def _stacked(draws: list[tuple[F64, F64, F64]]) -> tuple[F64, F64, F64]:
    """A scenario family's replicates as stacked probabilities, uniforms and serving noise."""
    return (
        np.stack([p for p, _, _ in draws]),
        np.stack([u for _, u, _ in draws]),
        np.stack([s for _, _, s in draws]),
    )


def _scenario_groups(sm: StudyModel) -> list[tuple[str, int, list[str], NDArray[np.int64], float]]:
    """The scenario-test families in draw order: grouping, model, groups, codes, pure variance."""
    out = []
    for dim, shifts in sm.group_shift.items():
        groups, codes = group_levels(sm.protocol, dim)
        if len(groups) < 2:
            continue
        for j in range(len(sm.models)):
            if np.all(np.isnan(shifts[j])):
                continue
            pure = max(float(sm.base_within[dim][j] - sm.phi_error[j]), 0.0)
            out.append((dim, j, list(groups), np.asarray(codes, dtype=np.int64), pure))
    return out


__all__ = ["BATCH_BYTES", "Batch", "ScenarioDraws", "batch_size", "correlated_slopes", "draw_batch"]

"""One simulated study's φ drawn cell by cell from the study model, and its per-face mean shifts.

:func:`draw_cells` draws every φ of every model × face × (base or value) × scenario
(:mod:`cueshift.power.model`) model by model, in the order the batched draws of
:mod:`cueshift.power.replicates` pull the same numbers; :func:`face_means` averages a face's
shifts over the scenarios exactly, as the analyses do. :func:`draw_face_means` gives the same
means in one fused numba pass. The simulation (:mod:`cueshift.power.simulate`) runs the study's
tests on them; the tests check the fused and batched draws against these.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from cueshift._types import F64
from cueshift.power.draws import binomial_counts, binomial_phi
from cueshift.power.face_mean_draws import GRID, MAX_DENOMINATOR
from cueshift.power.model import StudyModel
from cueshift.power.replicates import correlated_slopes, draw_batch


@dataclass(frozen=True)
class Cells:
    """One model's drawn φ: base ``(F, S)``, variations ``(V, F, S)`` and their valid answers."""

    phi_base: F64
    phi_var: F64
    n_base: NDArray[np.int64] | None
    n_var: NDArray[np.int64] | None


def draw_phi(
    sm: StudyModel, j: int, p: F64, rng: np.random.Generator, *, counts: bool = False
) -> tuple[F64, NDArray[np.int64] | None]:
    """φ of model ``j`` at probabilities ``p``: binomial share of the valid answers (NaN when none
    is valid) or, scored, ``p`` itself; plus serving noise."""
    p = np.clip(p, 0.0, 1.0)
    n_valid: NDArray[np.int64] | None = None
    if sm.score[j]:
        phi = p.copy()
    elif counts:
        valid, k = binomial_counts(p, int(sm.prompts[j]), float(sm.invalid[j]), rng)
        n_valid = valid.astype(np.int64)
        with np.errstate(invalid="ignore", divide="ignore"):
            phi = np.where(valid > 0, k / np.maximum(valid, 1.0), np.nan)
    else:
        phi = binomial_phi(p, int(sm.prompts[j]), float(sm.invalid[j]), rng)
    if sm.serving_sd[j] > 0:
        phi = phi + rng.normal(0.0, sm.serving_sd[j], size=p.shape)
    return phi, n_valid


def draw_cells(sm: StudyModel, rng: np.random.Generator, *, counts: bool = False) -> Iterator[Cells]:
    """Every model's φ of one simulated study, model by model."""
    n_v, n_f, n_s = len(sm.values), sm.n_faces, sm.scenarios
    slopes = correlated_slopes(sm, rng)
    for j in range(len(sm.models)):
        p_base = sm.p0[j] + rng.normal(0.0, sm.base_sd[j], size=(n_f, n_s))
        phi_b, n_b = draw_phi(sm, j, p_base, rng, counts=counts)
        shift = (
            sm.beta[j][:, None, None]
            + np.nan_to_num(sm.gamma[j])[:, :, None]
            + sm.scenario_dev[j][:, None, :]
            + slopes[j][:, :, None]
            + sm.fs_sd[j] * rng.standard_normal((n_v, n_f, n_s))
        )
        phi_v, n_v_ = draw_phi(sm, j, p_base[None, :, :] + shift, rng, counts=counts)
        phi_v[~sm.applies.T] = np.nan
        yield Cells(phi_b, phi_v, n_b, n_v_)


def draw_face_means(sm: StudyModel, rng: np.random.Generator) -> F64:
    """Every model's per-face mean shifts of one simulated study (``M × V × F``): the same numbers
    as :func:`face_means` of :func:`draw_cells` from the same generator, drawn and averaged in one
    numba pass (:func:`cueshift.power.replicates.draw_batch` of one replicate)."""
    return np.asarray(draw_batch(sm, rng, 1).means[0], dtype=np.float64)


def face_means(cells: Cells) -> F64:
    """Per-face mean Δ over the scenarios with a Δ (``V × F``), as ``face_matrix`` averages rows:
    summed exactly over the common denominator of the drawn valid counts (when the cells carry
    them), else on :data:`~cueshift.power.face_mean_draws.GRID`
    (:func:`~cueshift.power.face_mean_draws.mean_scale`)."""
    delta = cells.phi_var - cells.phi_base[None, :, :]
    ok = np.isfinite(delta)
    scale = GRID
    if cells.n_var is not None and cells.n_base is not None:
        present = np.unique(np.concatenate([cells.n_var[ok], np.broadcast_to(cells.n_base, ok.shape)[ok]]))
        scale = _lcm_scale(present[present > 0])
    total = np.rint(np.where(ok, delta, 0.0) * scale).sum(axis=2)
    n = ok.sum(axis=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, total / (np.maximum(n, 1) * scale), np.nan)


def _lcm_scale(counts: NDArray[np.int64]) -> float:
    """Least common multiple of ``counts`` (1 when empty), or the grid beyond the largest denominator."""
    scale = int(np.lcm.reduce(counts.astype(np.int64))) if counts.size else 1
    return float(scale) if scale <= MAX_DENOMINATOR else GRID


__all__ = ["Cells", "draw_cells", "draw_face_means", "draw_phi", "face_means"]

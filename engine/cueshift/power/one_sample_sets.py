r"""The one-sample face-level test families of a StylisticBias plan, with the moments of their
per-face values read off the study model.

A :class:`TestSet` is one BH family: per test the mean :math:`\mu` and sd :math:`\sigma` of the
per-face value across faces and the number of faces. :func:`attribute_sets` (``sbs_attribute``,
one family per model), :func:`pair_sets` (``model_pair``, one per pair of models) and
:func:`cell_set` (``table11_cell``, all cells) build them from
:class:`~cueshift.power.model.StudyModel`; :mod:`cueshift.power.families` turns them into power
rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import polars as pl

from cueshift._types import F64
from cueshift.power.model import StudyModel, group_levels, table11_cells


@dataclass(frozen=True)
class TestSet:
    """One family of one-sample face-level tests: per test its label, mean and sd of the per-face
    value and number of faces, and the planned faces of the study."""

    test: str
    family: str
    model_id: str
    labels: list[str]
    mean: F64
    sd: F64
    n: F64
    faces: int


def _error_per_model(sm: StudyModel) -> F64:
    return np.asarray((sm.fs_sd**2 + 2.0 * sm.phi_error) / sm.scenarios, dtype=np.float64)


def attribute_sets(sm: StudyModel) -> list[TestSet]:
    """SBS per value, one family per model."""
    out = []
    err = _error_per_model(sm)
    n = sm.applies.sum(axis=0).astype(np.float64)
    for j, model_id in enumerate(sm.models):
        g = sm.gamma[j]
        with np.errstate(invalid="ignore"):
            mean = sm.beta[j] + np.nanmean(g, axis=1)
            var = np.nanvar(g, axis=1) + sm.slope_sd[j] ** 2 + err[j]
        out.append(TestSet("sbs_attribute", model_id, model_id, sm.values, mean, np.sqrt(var), n, sm.n_faces))
    return out


def pair_sets(sm: StudyModel) -> list[TestSet]:
    """Differences between two models' SBS per value, one family per pair."""
    out = []
    err = _error_per_model(sm)
    n = sm.applies.sum(axis=0).astype(np.float64)
    for a, b in combinations(range(len(sm.models)), 2):
        diff = sm.gamma[a] - sm.gamma[b]
        cov = sm.slope_corr[a, b] * sm.slope_sd[a] * sm.slope_sd[b]
        with np.errstate(invalid="ignore"):
            mean = sm.beta[a] - sm.beta[b] + np.nanmean(diff, axis=1)
            var = (
                np.nanvar(diff, axis=1)
                + sm.slope_sd[a] ** 2
                + sm.slope_sd[b] ** 2
                - 2 * cov
                + err[a]
                + err[b]
            )
        label = f"{sm.models[a]} - {sm.models[b]}"
        out.append(TestSet("model_pair", label, label, sm.values, mean, np.sqrt(var), n, sm.n_faces))
    return out


def cell_set(sm: StudyModel) -> TestSet:
    """Table 11: per value × demographic group, the faces' mean Δ over scenarios and models."""
    cells = table11_cells(sm.protocol)
    n_m = len(sm.models)
    gbar = sm.gamma.mean(axis=0)  # V × F
    beta = sm.beta.mean(axis=0)
    slope = sm.slope_sd[:, None, :] * sm.slope_sd[None, :, :]  # M × M × V
    slope_var = (sm.slope_corr[:, :, None] * slope).sum(axis=(0, 1)) / n_m**2
    err = _error_per_model(sm).sum() / n_m**2
    mean, var, labels = [], [], []
    for v, vi, dim, g, gi, _ in cells.iter_rows():
        _, codes = group_levels(sm.protocol, dim)
        member = sm.applies[:, vi] & (codes == gi)
        vals = gbar[vi, member]
        mean.append(beta[vi] + vals.mean())
        var.append(vals.var() + slope_var[vi] + err)
        labels.append(f"{v} | {dim}={g}")
    return TestSet(
        "table11_cell",
        "all cells",
        "(pooled)",
        labels,
        np.array(mean),
        np.sqrt(np.array(var)),
        cells["n"].cast(pl.Float64).to_numpy(),
        sm.n_faces,
    )


__all__ = ["TestSet", "attribute_sets", "cell_set", "pair_sets"]

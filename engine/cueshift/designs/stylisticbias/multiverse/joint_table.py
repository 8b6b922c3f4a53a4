"""The joint test's table (``result_multiverse_joint``): each model's SBS (and the pooled one) in
every cueshift specification, as per-face means shared by the specifications with the same rows,
tested jointly (:func:`~cueshift.designs.stylisticbias.multiverse.joint.joint_test`) on one set of
face draws (:func:`~cueshift.stats.face_multiplicities`, the run's seed and resamples)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from cueshift._types import F64
from cueshift.designs.stylisticbias.multiverse.joint import JOINT_STATISTICS, joint_test
from cueshift.designs.stylisticbias.stats import SummedDelta
from cueshift.stats import POOLED, Resampling, coarsen, face_multiplicities


def aligned(blocks: Sequence[tuple[Sequence[str], F64]], faces: Sequence[str] | None = None) -> F64:
    """The blocks' columns side by side on ``faces`` (default: every block's, sorted; NaN where a
    block lacks a face)."""
    faces = faces if faces is not None else sorted({f for block_faces, _ in blocks for f in block_faces})
    row = {f: i for i, f in enumerate(faces)}
    out = np.full((len(faces), sum(v.shape[1] for _, v in blocks)), np.nan)
    start = 0
    for block_faces, block in blocks:
        rows = np.array([row[f] for f in block_faces], dtype=np.int64)
        out[rows, start : start + block.shape[1]] = block
        start += block.shape[1]
    return out


def joint_table(
    blocks: Sequence[SpecificationFaces], *, resampling: Resampling, alpha: float
) -> pl.DataFrame:
    """``result_multiverse_joint``: the joint test of each model's SBS claim (and the pooled one)
    over the specifications' face values ``blocks``, one row per model × statistic."""
    faces = sorted({f for block in blocks for f in block.faces})
    draws = face_multiplicities(len(faces), resampling.resamples, resampling.seed)
    models = list(dict.fromkeys(m for block in blocks for m in block.models if m != POOLED))
    rows = []
    for model in [*models, POOLED]:
        chosen = [(b, b.models.index(model)) for b in blocks if model in b.models]
        values = aligned([(b.faces, b.values[:, [i]]) for b, i in chosen], faces)
        kept = ~np.all(np.isnan(values), axis=0)
        if not kept.any():
            continue
        weights = np.array([b.n_specifications for b, _ in chosen], dtype=np.int64)[kept]
        test = joint_test(values[:, kept], weights, draws, alpha)
        n_faces = int(np.sum(~np.all(np.isnan(values[:, kept]), axis=1)))
        for statistic, observed, p in zip(JOINT_STATISTICS, test.observed, test.p, strict=True):
            rows.append((model, statistic, float(observed), float(p), test.dominant_sign,
                         int(weights.sum()), resampling.resamples, n_faces))  # fmt: skip
    return pl.DataFrame(rows, schema=_SCHEMA, orient="row")


@dataclass(frozen=True)
class SpecificationFaces:
    """The per-face mean Δ of each model's SBS (and the pooled one, :data:`POOLED`) in
    ``n_specifications`` specifications with the same rows: ``values[f, m]`` of face ``faces[f]``
    and model ``models[m]``."""

    faces: list[str]
    models: list[str]
    values: F64
    n_specifications: int

    @classmethod
    def of(cls, summed: SummedDelta, n_specifications: int) -> SpecificationFaces:
        """From a specification's Δ summed per face (the SBS model level's face matrices)."""
        per_model, pooled = coarsen(summed.fine, ("model_id",)), coarsen(summed.fine, ())
        models = [*per_model.cells["model_id"].to_list(), POOLED]
        return cls(summed.faces, models, np.hstack([per_model.values, pooled.values]), n_specifications)

    def counted_once_more(self) -> SpecificationFaces:
        """The same face values standing for one more specification."""
        return dataclasses.replace(self, n_specifications=self.n_specifications + 1)


_SCHEMA = {
    "model_id": pl.String, "statistic": pl.String, "observed": pl.Float64, "p": pl.Float64,
    "dominant_sign": pl.String, "n_specifications": pl.Int64, "n_resamples": pl.Int64, "n_faces": pl.Int64,
}  # fmt: skip


__all__ = ["SpecificationFaces", "aligned", "joint_table"]

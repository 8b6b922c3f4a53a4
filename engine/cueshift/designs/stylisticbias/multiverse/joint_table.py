"""The joint test's table (``result_multiverse_joint``): each model's SBS (and the pooled one) and
each model's SBS of each attribute, in every cueshift specification, as per-face means shared by the
specifications with the same rows, tested jointly
(:func:`~cueshift.designs.stylisticbias.multiverse.joint.joint_tests`) on one set of face draws
(:func:`~cueshift.stats.face_multiplicities`, the run's seed and resamples).

The attributes' joint p-values are adjusted by Benjamini-Hochberg within each model (pooled too)
and statistic, over the model's attributes (the family of ``result_sbs``'s attribute rows):
:math:`\\tilde p_{(i)} = \\min_{j \\ge i} \\min(1, m\\, p_{(j)}/j)` over its :math:`m` attributes;
a model's SBS is alone in its family (:math:`p_{\\mathrm{adj}} = p`). Benjamini, Y. & Hochberg, Y.
(1995), *J. R. Stat. Soc. B* 57, 289-300.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl
from numpy.typing import NDArray

from cueshift._types import F64
from cueshift.designs.stylisticbias.multiverse.joint import JOINT_STATISTICS, joint_tests
from cueshift.designs.stylisticbias.stats import SummedDelta
from cueshift.stats import POOLED, Resampling, bh_by_family, coarsen, face_multiplicities

#: A claim of the joint test: (``kind``, ``model_id``, ``subject``), as ``result_multiverse`` names it.
Claim = tuple[str, str, str]
#: The subject of a model's SBS claim.
ALL_ATTRIBUTES = "all attributes"


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
    """``result_multiverse_joint``: the joint test of each ``sbs_model`` claim (models, then the
    pooled one) and each ``sbs_attribute`` claim over the specifications' face values ``blocks``,
    one row per claim × statistic, with ``p_adj`` (module docstring)."""
    faces = sorted({f for block in blocks for f in block.faces})
    draws = face_multiplicities(len(faces), resampling.resamples, resampling.seed)
    columns: list[F64] = []
    members: list[NDArray[np.int64]] = []
    weights: list[NDArray[np.int64]] = []
    claims: list[Claim] = []
    for claim in _claims(blocks):
        chosen = [(b, b.claims.index(claim)) for b in blocks if claim in b.claims]
        values = aligned([(b.faces, b.values[:, [i]]) for b, i in chosen], faces)
        kept = ~np.all(np.isnan(values), axis=0)
        if not kept.any():
            continue
        start = sum(c.shape[1] for c in columns)
        columns.append(values[:, kept])
        members.append(np.arange(start, start + int(kept.sum())))
        weights.append(np.array([b.n_specifications for b, _ in chosen], dtype=np.int64)[kept])
        claims.append(claim)
    if not claims:
        return pl.DataFrame(schema=_SCHEMA)
    values = np.hstack(columns)
    tests = joint_tests(values, members, np.concatenate(weights), draws, alpha)
    rows = []
    for claim, test, weight, where in zip(claims, tests, weights, members, strict=True):
        n_faces = int(np.sum(~np.all(np.isnan(values[:, where]), axis=1)))
        for statistic, observed, p in zip(JOINT_STATISTICS, test.observed, test.p, strict=True):
            rows.append((*claim, statistic, float(observed), float(p), test.dominant_sign,
                         int(weight.sum()), resampling.resamples, n_faces))  # fmt: skip
    frame = pl.DataFrame(rows, schema={k: v for k, v in _SCHEMA.items() if k != "p_adj"}, orient="row")
    return bh_by_family(frame, ["kind", "model_id", "statistic"]).select(list(_SCHEMA))


def _claims(blocks: Sequence[SpecificationFaces]) -> list[Claim]:
    """Every block's claims: the models' SBS (models in order, pooled last), then their attributes'."""
    seen = list(dict.fromkeys(c for block in blocks for c in block.claims))
    return sorted(seen, key=lambda c: (c[0] != "sbs_model", c[1] == POOLED))


@dataclass(frozen=True)
class SpecificationFaces:
    """The per-face mean Δ of each model's SBS (and the pooled one, :data:`POOLED`) and of each
    model's SBS of each attribute, in ``n_specifications`` specifications with the same rows:
    ``values[f, c]`` of face ``faces[f]`` and claim ``claims[c]``."""

    faces: list[str]
    claims: list[Claim]
    values: F64
    n_specifications: int

    @classmethod
    def of(cls, summed: SummedDelta, n_specifications: int) -> SpecificationFaces:
        """From a specification's Δ summed per face (the SBS model and attribute levels' face
        matrices: the cells each claim of ``sbs_claims`` is tested on)."""
        claims: list[Claim] = []
        blocks = []
        for kind, keys in (("sbs_model", ()), ("sbs_attribute", ("variation_category", "variation_value"))):
            per_model, pooled = coarsen(summed.fine, ("model_id", *keys)), coarsen(summed.fine, keys)
            for fm, model in ((per_model, None), (pooled, POOLED)):
                models = fm.cells["model_id"].to_list() if model is None else [model] * fm.cells.height
                subjects = fm.cells["variation_value"].to_list() if keys else [ALL_ATTRIBUTES] * len(models)
                claims.extend((kind, str(m), str(s)) for m, s in zip(models, subjects, strict=True))
                blocks.append(fm.values)
        return cls(summed.faces, claims, np.hstack(blocks), n_specifications)

    def counted_once_more(self) -> SpecificationFaces:
        """The same face values standing for one more specification."""
        return dataclasses.replace(self, n_specifications=self.n_specifications + 1)


_SCHEMA = {
    "kind": pl.String, "model_id": pl.String, "subject": pl.String, "statistic": pl.String,
    "observed": pl.Float64, "p": pl.Float64, "p_adj": pl.Float64, "dominant_sign": pl.String,
    "n_specifications": pl.Int64, "n_resamples": pl.Int64, "n_faces": pl.Int64,
}  # fmt: skip


__all__ = ["ALL_ATTRIBUTES", "Claim", "SpecificationFaces", "aligned", "joint_table"]

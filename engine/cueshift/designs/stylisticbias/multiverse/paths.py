"""One specification's claims: on cueshift's path from its rebuilt Δ and base φ rows (:mod:`.cells`)
by the statistics ``cueshift analyze`` runs, on the release's path by compat's functions
(:mod:`.release`).

What specifications share is computed once: the rows of each data key, SBS per rows × population,
VS and Table 3 per rows, and the per-face means the joint test reads (:mod:`.joint_table`). The
first cueshift specification is the reference: its tables are the release path's reference and its
top VS dimension every later VS claim's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import duckdb
import polars as pl

from cueshift.designs.stylisticbias.multiverse.cells import StoredCells, specification_rows
from cueshift.designs.stylisticbias.multiverse.choices import CHOICES, MultiverseConfig, Specification
from cueshift.designs.stylisticbias.multiverse.claims import sbs_claims, table3_claims, vs_claims
from cueshift.designs.stylisticbias.multiverse.joint_table import SpecificationFaces
from cueshift.designs.stylisticbias.multiverse.release import ReferenceTables, release_claims
from cueshift.designs.stylisticbias.stats import (
    category_demographic_table,
    sbs_levels,
    summed_delta,
    variation_strength,
)
from cueshift.errors import CueshiftError
from cueshift.stats import Resampling

#: The SBS levels the claims read (``sbs_levels`` adds the cells its |SBS| needs).
CLAIM_LEVELS = ("model", "variation_value")

#: A specification's rows: what its options of the data choices select.
DataKey = tuple[str, ...]


@dataclass
class PathClaims:
    """The claims of each specification of one run, in order (the reference first, the release
    path last), with what specifications share kept between calls."""

    con: duckdb.DuckDBPyConnection
    stored: StoredCells
    config: MultiverseConfig
    models: Sequence[str]
    resampling: Resampling
    rows_of: dict[DataKey, tuple[pl.DataFrame, pl.DataFrame]] = field(default_factory=dict)
    sbs_of: dict[DataKey, pl.DataFrame] = field(default_factory=dict)
    vs_of: dict[DataKey, pl.DataFrame] = field(default_factory=dict)
    faces_of: dict[DataKey, SpecificationFaces] = field(default_factory=dict)
    reference: ReferenceTables | None = None
    reference_top: dict[str, str] = field(default_factory=dict)

    def claims(self, spec: Specification) -> tuple[Specification, pl.DataFrame]:
        """``spec`` (on the release path, with the parsing it realised) and its claims."""
        if spec.of("path") != "release":
            return spec, self._cueshift(spec)
        assert self.reference is not None  # the reference specification comes first
        made = release_claims(
            self.con, self.reference, models=self.models, resampling=self.resampling,
            alpha=self.config.alpha, levels=CLAIM_LEVELS, reference_top=self.reference_top,
        )  # fmt: skip
        return Specification(spec.index, (made.parsing, *spec.options[1:])), made.claims

    def faces(self) -> list[SpecificationFaces]:
        """The per-face means of each distinct rows of cueshift's specifications, in run order."""
        return list(self.faces_of.values())

    def _cueshift(self, spec: Specification) -> pl.DataFrame:
        key = spec.data_key
        if key not in self.rows_of:
            self.rows_of[key] = specification_rows(self.stored, spec)
        delta, base_phi = self.rows_of[key]
        if delta.height == 0:
            raise CueshiftError(f"specification {named(spec)}: no Δ rows")
        sbs_key = (*key, spec.of("generalise"))
        if sbs_key not in self.sbs_of:
            summed = summed_delta(delta, ())
            sbs = sbs_levels(
                delta, levels=CLAIM_LEVELS, dimensions=(), resampling=self.resampling,
                generalise=spec.of("generalise"), summed=summed,
            )  # fmt: skip
            self.sbs_of[sbs_key] = sbs_claims(sbs, self.config.alpha)
            if key not in self.faces_of:
                self.faces_of[key] = SpecificationFaces.of(summed, 0)
        self.faces_of[key] = self.faces_of[key].counted_once_more()
        if key not in self.vs_of:
            self.vs_of[key] = self._vs_and_table3(delta, base_phi)
        return pl.concat([self.sbs_of[sbs_key], self.vs_of[key]])

    def _vs_and_table3(self, delta: pl.DataFrame, base_phi: pl.DataFrame) -> pl.DataFrame:
        """The VS and Table 3 claims of one rows; the first rows' tables become the reference."""
        vs = variation_strength(base_phi, resampling=self.resampling)
        table3 = category_demographic_table(delta, resampling=self.resampling)
        top_of = self.reference_top or None
        claims = pl.concat([vs_claims(vs, top_of), table3_claims(table3, self.config.alpha)])
        if self.reference is None:
            self.reference = ReferenceTables(delta, base_phi, vs, table3)
            top = claims.filter(kind="vs_top").select("model_id", "verdict")
            self.reference_top = {m: v for m, v in top.iter_rows() if v}
        return claims


def named(spec: Specification) -> str:
    """``spec``'s options as ``choice=option, ...``."""
    return ", ".join(f"{choice}={option}" for choice, option in zip(CHOICES, spec.options, strict=True))


__all__ = ["CLAIM_LEVELS", "PathClaims", "named"]

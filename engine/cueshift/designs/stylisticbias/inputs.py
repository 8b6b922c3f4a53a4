"""What the seed 000 analyses receive: the Δ and base φ rows and the resampling settings, shared by
every module that declares analyses of the suite ``stylisticbias``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, TypedDict

import duckdb
import polars as pl

from cueshift.stats import AnalysisContext, CIMethod, TestMethod
from cueshift.views import GREEDY, PhiChoice

if TYPE_CHECKING:
    from cueshift.designs.stylisticbias.edit_audit import EditAudit
    from cueshift.designs.stylisticbias.quality import IdentityQuality

SUITE = "stylisticbias"


@dataclass(frozen=True)
class Inputs:
    """What the seed 000 analyses read: Δ rows, base φ rows, and the resampling settings.

    ``con`` (the study database, read only by analyses) and ``models`` (the subset, empty for all)
    let an analysis read a view the others do not need (e.g. judgment-level answers); ``None`` when
    the inputs were built from frames alone. ``phi`` is the φ ``delta``/``base_phi`` were read with
    (``cueshift analyze --phi``); an analysis reading more Δ rows reads them with it. ``quality``:
    the measured identity preservation (``[quality] encoder``) and the ``--min-identity`` applied
    to ``delta``; ``None`` when the study measures none. ``generalise``: the question the SBS
    and Table 3 intervals answer (``cueshift analyze --generalise``): ``'faces'`` or
    ``'faces+scenarios'``. ``audit``: the edit audit of ``cueshift analyze --audit`` (``None``
    without the option); ``delta_before_audit``: the Δ rows before its ``strict`` drop.
    """

    delta: pl.DataFrame
    base_phi: pl.DataFrame
    n_resamples: int = 10_000
    seed: int = 0
    test: TestMethod = "rank"
    ci_method: CIMethod = "bca"
    confidence_level: float = 0.95
    con: duckdb.DuckDBPyConnection | None = None
    models: tuple[str, ...] = ()
    phi: PhiChoice = GREEDY
    quality: IdentityQuality | None = None
    generalise: str = "faces"
    audit: EditAudit | None = None
    delta_before_audit: pl.DataFrame | None = None

    @property
    def boot(self) -> Boot:
        """The face-level bootstrap settings shared by every interval."""
        return Boot(
            n_resamples=self.n_resamples,
            seed=self.seed,
            confidence_level=self.confidence_level,
            ci_method=self.ci_method,
        )


class Boot(TypedDict):
    """Keyword arguments of the face-level bootstrap."""

    n_resamples: int
    seed: int
    confidence_level: float
    ci_method: CIMethod


Context = AnalysisContext[Inputs]

"""What the seed 000 analyses receive: the Δ and base φ rows and the run's
:class:`~cueshift.stats.Resampling`, shared by every module that declares analyses of the suite
``stylisticbias``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import duckdb
import polars as pl

from cueshift.stats import AnalysisContext, BootstrapOptions, Resampling
from cueshift.views import GREEDY, PhiChoice

if TYPE_CHECKING:
    from cueshift.designs.stylisticbias.edit_audit import EditAudit
    from cueshift.designs.stylisticbias.quality import IdentityQuality

SUITE = "stylisticbias"


@dataclass(frozen=True)
class Inputs:
    """What the seed 000 analyses read: Δ rows, base φ rows, and the run's resampling (one
    :class:`~cueshift.stats.Resampling`: every bootstrap and permutation test draws with it).

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
    resampling: Resampling = Resampling()
    con: duckdb.DuckDBPyConnection | None = None
    models: tuple[str, ...] = ()
    phi: PhiChoice = GREEDY
    quality: IdentityQuality | None = None
    generalise: str = "faces"
    audit: EditAudit | None = None
    delta_before_audit: pl.DataFrame | None = None

    @property
    def boot(self) -> BootstrapOptions:
        """The face-level bootstrap settings shared by every interval."""
        return self.resampling.bootstrap()


Context = AnalysisContext[Inputs]

"""What the seed 000 analyses receive: the Δ and base φ rows, the run's
:class:`~cueshift.stats.Resampling` and :class:`~cueshift.stats.RunChoices`, shared by every module
that declares analyses of the suite ``stylisticbias``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import duckdb
import polars as pl

from cueshift.stats import AnalysisContext, Resampling, RunChoices
from cueshift.views import GREEDY, PhiChoice

if TYPE_CHECKING:
    from cueshift.designs.stylisticbias.edit_audit import EditAudit
    from cueshift.designs.stylisticbias.quality import IdentityQuality
    from cueshift.study.equivalence import EquivalenceConfig

SUITE = "stylisticbias"


@dataclass(frozen=True)
class Inputs:
    """What the seed 000 analyses read: Δ rows, base φ rows, the run's resampling (one
    :class:`~cueshift.stats.Resampling`: every bootstrap and permutation test draws with it, passed
    whole to the tables) and its choices (one :class:`~cueshift.stats.RunChoices`: the model subset,
    the population the intervals generalise to, ...).

    ``con`` (the study database, read only by analyses) and ``choices.models`` (the subset, empty
    for all) let an analysis read a view the others do not need (e.g. judgment-level answers);
    ``con`` is ``None`` when the inputs were built from frames alone. ``phi`` is the φ
    ``delta``/``base_phi`` were read with (``choices.phi`` parsed; ``cueshift analyze --phi``); an
    analysis reading more Δ rows reads them with it. ``quality``: the measured identity
    preservation (``[quality] encoder``) and the ``--min-identity`` applied to ``delta``; ``None``
    when the study measures none. ``audit``: the edit audit of ``cueshift analyze --audit``
    (``None`` without the option); ``delta_before_audit``: the Δ rows before its ``strict`` drop.
    ``equivalence``: the study's smallest effects of interest (``[equivalence]``; ``None``: none
    declared, no ``result_equivalence``).
    """

    delta: pl.DataFrame
    base_phi: pl.DataFrame
    resampling: Resampling = Resampling()
    choices: RunChoices = RunChoices()
    con: duckdb.DuckDBPyConnection | None = None
    phi: PhiChoice = GREEDY
    quality: IdentityQuality | None = None
    audit: EditAudit | None = None
    delta_before_audit: pl.DataFrame | None = None
    equivalence: EquivalenceConfig | None = None

    @property
    def models(self) -> tuple[str, ...]:
        """The model subset analysed (``choices.models``; empty: every model)."""
        return self.choices.models

    @property
    def generalise(self) -> str:
        """The question the SBS, Table 3 and model-difference intervals answer
        (``choices.generalise``): ``'faces'`` or ``'faces+scenarios'``."""
        return self.choices.generalise


Context = AnalysisContext[Inputs]

"""The study-file section ``[equivalence]``: the smallest effects of interest.

A non-significant test does not show that a cue leaves a judgment alone; an equivalence test
against a declared smallest effect of interest does (two one-sided tests, TOST; Schuirmann 1987;
Lakens 2017). With this section ``cueshift analyze`` writes ``result_equivalence``: per model,
variation attribute and scenario category (and per model, demographic dimension and scenario
category for the VS), whether the shift is a *shift*, *equivalent to no shift* or *inconclusive*
at these margins (docs/equivalence.md).
"""

from __future__ import annotations

from pydantic import Field

from cueshift.study.sections import Section


class EquivalenceConfig(Section):
    """``[equivalence]``: the smallest effects of interest, each a margin on its own scale.

    Examples
    --------
    >>> EquivalenceConfig(delta=0.05).model_difference
    0.05
    """

    delta: float = Field(
        default=0.05, gt=0.0, le=1.0, description="smallest |Δ| (SBS: a difference of shares) of interest"
    )
    vs: float = Field(
        default=0.05, gt=0.0, le=0.5, description="smallest Variation Strength (Table 2) of interest"
    )
    model_difference: float = Field(
        default=0.05, gt=0.0, le=2.0, description="smallest |SBS difference| between two models of interest"
    )


__all__ = ["EquivalenceConfig"]

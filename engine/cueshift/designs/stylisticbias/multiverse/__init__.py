"""The multiverse of the StylisticBias headline analyses (``cueshift multiverse``): the study's
choices (:mod:`.choices`), the stored judgments read once (:mod:`.cells`) and the choices they
realise (:mod:`.effective`), each specification's claims (:mod:`.paths`, :mod:`.release`), the claims
and their summary (:mod:`.claims`), the joint test of each model's SBS (:mod:`.joint`,
:mod:`.joint_table`), the run (:mod:`.run`)."""

from cueshift.designs.stylisticbias.multiverse.choices import (
    CHOICES,
    DEFAULT_MULTIVERSE_RESAMPLES,
    MultiverseConfig,
    Specification,
    specifications,
)
from cueshift.designs.stylisticbias.multiverse.claims import CLAIM_KINDS
from cueshift.designs.stylisticbias.multiverse.run import MultiverseResult, run_multiverse

__all__ = [
    "CHOICES",
    "CLAIM_KINDS",
    "DEFAULT_MULTIVERSE_RESAMPLES",
    "MultiverseConfig",
    "MultiverseResult",
    "Specification",
    "run_multiverse",
    "specifications",
]

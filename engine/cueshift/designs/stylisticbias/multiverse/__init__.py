"""The multiverse of the StylisticBias headline analyses (``cueshift multiverse``): the study's
choices (:mod:`.choices`), the stored judgments read once (:mod:`.cells`) and the choices they
realise (:mod:`.effective`), each specification's claims (:mod:`.paths`, :mod:`.release`), the claims
and their summary (:mod:`.claims`), the joint test of each model's SBS (:mod:`.joint`,
:mod:`.joint_table`), the run (:mod:`.run`: ``run_multiverse``, ``MultiverseResult``).

Only the choices are shown here: the study model reads them (``[multiverse]``), and reading a study
file loads no statistics (D90); the run is imported from :mod:`.run`."""

from cueshift.designs.stylisticbias.multiverse.choices import (
    CHOICES,
    DEFAULT_MULTIVERSE_RESAMPLES,
    MultiverseConfig,
    Specification,
    specifications,
)

__all__ = [
    "CHOICES",
    "DEFAULT_MULTIVERSE_RESAMPLES",
    "MultiverseConfig",
    "Specification",
    "specifications",
]

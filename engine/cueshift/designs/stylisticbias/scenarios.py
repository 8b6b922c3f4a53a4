"""The scenario set of the StylisticBias design (seed 000 Table 1).

The 25 scenarios themselves (:data:`~cueshift.study.scenarios.STYLISTICBIAS_25`) stay in the
study layer: they are the default of ``[scenarios] set`` and the prompts the stand-in judges of
the inference layer are built on, below the designs.
"""

from __future__ import annotations

from cueshift.study.scenarios import STYLISTICBIAS_25, Scenario

#: The value of ``[scenarios] set`` that names the 25 scenarios.
SCENARIO_SET = "stylisticbias-25"

#: The design's scenario sets by name (:attr:`cueshift.designs.protocol.Design.scenario_sets`).
SCENARIO_SETS: dict[str, tuple[Scenario, ...]] = {SCENARIO_SET: STYLISTICBIAS_25}

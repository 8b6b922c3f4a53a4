"""Every scenario set a study file can name in ``[scenarios] set``, by name."""

from __future__ import annotations

from cueshift.study.scenarios import STYLISTICBIAS_25, Scenario
from cueshift.study.scenarios_001 import ATTRACTIVENESS_91, SCENARIO_SET_001
from cueshift.study.scenarios_002 import PAIRWISE_QUESTIONS, SCENARIO_SET_002
from cueshift.study.scenarios_004 import OMI_34, SCENARIO_SET_004

SCENARIO_SETS: dict[str, tuple[Scenario, ...]] = {
    "stylisticbias-25": STYLISTICBIAS_25,
    SCENARIO_SET_001: ATTRACTIVENESS_91,
    SCENARIO_SET_004: OMI_34,
    SCENARIO_SET_002: PAIRWISE_QUESTIONS,
}

"""Questions of the two-image pairwise design (seed 002 §3.1.2), stored as scenarios.

A pairwise trial asks one question about two images; the ``scenario`` table holds it so
that ``pairwise_trial.scenario_id`` points at a stored row like every other judgment.
"""

from __future__ import annotations

from cueshift.study.scenarios import Scenario

#: The value of ``[scenarios] set`` that names the pairwise questions.
SCENARIO_SET = "pairwise-002"

#: Seed 002's perception question (the verbatim prompt lives in ``PairwiseConfig.prompt``).
MORE_ATTRACTIVE = Scenario(
    scenario_id="more-attractive",
    favorable="more attractive",
    unfavorable="less attractive",
    category="Pairwise preference",
    family="pairwise",
)

PAIRWISE_QUESTIONS: tuple[Scenario, ...] = (MORE_ATTRACTIVE,)

#: The design's scenario sets by name (:attr:`cueshift.designs.protocol.Design.scenario_sets`).
SCENARIO_SETS: dict[str, tuple[Scenario, ...]] = {SCENARIO_SET: PAIRWISE_QUESTIONS}

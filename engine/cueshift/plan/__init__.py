"""``cueshift plan``: power, minimum detectable effects and cost of a study before it runs.

For the study's tests (seed 000: per-attribute SBS, Table 11 cells with BH over the family,
the demographic tests behind VS, model-pair differences; seed 001: Kruskal–Wallis and paired
Wilcoxon per scenario; seed 002: cohort preferences and position bias; seed 004: the interval on
the model–human Spearman ρ) a plan gives the power at the planned size, the minimum detectable
effect at the target power, the expected interval half-width and the units needed for a target
effect, by two methods that check each other: normal theory with estimated variance components
(:mod:`.families`, :mod:`.power`) and simulated studies that run the analyses' own tests
(:mod:`.simulate`). The components come from a pilot study database (:mod:`.pilot_inputs`) or the
simulated judge's documented defaults (:mod:`.judge`). Cost: prompts, forward passes, prefill
tokens with and without the shared image prefix, GPU-hours (:mod:`.cost`).

The package sits above :mod:`cueshift.designs` (it reads a design's pilot through the design's
own loaders) and below the command line. Public surface::

    from cueshift.plan import PlanRequest, Targets, CostSettings, plan_study, write_plan, print_plan
"""

from cueshift.plan.console import plan_markdown, print_plan
from cueshift.plan.cost import CostSettings
from cueshift.plan.families import Targets
from cueshift.plan.request import DEFAULT_TARGET_EFFECT, PlanRequest, PlanResult, targets_for
from cueshift.plan.run import plan_study, planners, write_plan

__all__ = [
    "DEFAULT_TARGET_EFFECT",
    "CostSettings",
    "PlanRequest",
    "PlanResult",
    "Targets",
    "plan_markdown",
    "plan_study",
    "planners",
    "print_plan",
    "targets_for",
    "write_plan",
]

"""``cueshift plan``: power, minimum detectable effects and cost of a study before it runs.

The command's orchestration only: the study's design gives its planner through the design
registry (``Design.planner()``: a :class:`~cueshift.power.request.DesignPlanner` with the design's
unit, default target effect and plan function, in ``designs/<name>/planner.py``), :func:`plan_study`
runs it and checks its tables against ``schemas/plan.py``, :func:`write_plan` and
:func:`print_plan` (:mod:`.console`) write and show them. The power-planning machinery the
planners are built from is :mod:`cueshift.power`, below the designs.

The package sits above :mod:`cueshift.designs` and below the command line. Public surface::

    from cueshift.plan import PlanRequest, Targets, CostSettings, plan_study, write_plan, print_plan
    from cueshift.plan import plan_progress  # progress bars on stderr, or in a notebook

A plan reports its progress through ``PlanRequest(progress=...)`` (:mod:`cueshift.power.progress`);
:func:`plan_progress` gives rich bars (:mod:`.progress`).
"""

from __future__ import annotations

import warnings

from cueshift.plan.console import plan_markdown, print_plan
from cueshift.plan.options import curve_simulations_for, plan_alpha
from cueshift.plan.progress import plan_progress
from cueshift.plan.run import plan_study, planner_of, planners, targets_for, write_plan
from cueshift.power.cost import CostSettings
from cueshift.power.families import Targets
from cueshift.power.request import DesignPlanner, PlanRequest, PlanResult


def __getattr__(name: str) -> object:
    """``DEFAULT_TARGET_EFFECT`` (deprecated: each design's ``planner().target_effect``)."""
    if name == "DEFAULT_TARGET_EFFECT":
        warnings.warn(
            "cueshift.plan.DEFAULT_TARGET_EFFECT is deprecated: use the design's "
            "planner().target_effect (cueshift.plan.planner_of(design).target_effect)",
            DeprecationWarning,
            stacklevel=2,
        )
        return {design: planner.target_effect for design, planner in planners().items()}
    raise AttributeError(f"module 'cueshift.plan' has no attribute {name!r}")


__all__ = [
    "CostSettings",
    "DesignPlanner",
    "PlanRequest",
    "PlanResult",
    "Targets",
    "curve_simulations_for",
    "plan_alpha",
    "plan_markdown",
    "plan_progress",
    "plan_study",
    "planner_of",
    "planners",
    "print_plan",
    "targets_for",
    "write_plan",
]

"""The options of ``cueshift plan`` whose default is the design's: ``--alpha`` (the level its
analysis tests at) and ``--curve-simulations`` (refused where the design draws no power curve)."""

from __future__ import annotations

from cueshift.errors import ConfigError
from cueshift.plan.run import planner_of
from cueshift.power.families import Targets
from cueshift.study.config import Study

#: Simulated studies per point of the power curve when ``--curve-simulations`` is left out.
CURVE_SIMULATIONS = 200


def plan_alpha(study: Study, alpha: float | None) -> float:
    """The level a plan tests at: ``alpha`` (``--alpha``), else the level the study's design tests
    at (its planner's ``alpha``: a paired study's ``[paired] alpha``), else 0.05.

    Examples
    --------
    >>> from cueshift.designs import load_study
    >>> plan_alpha(load_study("default"), None), plan_alpha(load_study("default"), 0.01)
    (0.05, 0.01)
    """
    if alpha is not None:
        return alpha
    own = planner_of(study.design).alpha
    return own(study) if own is not None else Targets().q


def curve_simulations_for(design: str, given: int | None) -> int:
    """Simulated studies per power-curve point: ``given`` (``--curve-simulations``), else
    :data:`CURVE_SIMULATIONS` where the design draws a power curve and 0 where it draws none.

    Raises
    ------
    ConfigError
        A positive ``given`` for a design whose planner draws no power curve (one line).

    Examples
    --------
    >>> curve_simulations_for("stylisticbias", None), curve_simulations_for("paired", None)
    (200, 0)
    >>> curve_simulations_for("paired", 50)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    cueshift.errors.ConfigError: --curve-simulations 50: design 'paired' draws no power curve; ...
    """
    planner = planner_of(design)
    if given is None:
        return CURVE_SIMULATIONS if planner.curve else 0
    if given > 0 and not planner.curve:
        raise ConfigError(
            f"--curve-simulations {given}: design {design!r} draws no power curve; leave the option out"
        )
    return given


__all__ = ["CURVE_SIMULATIONS", "curve_simulations_for", "plan_alpha"]

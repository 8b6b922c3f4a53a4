"""What ``cueshift plan`` is asked (:class:`PlanRequest`), what it answers (:class:`PlanResult`), and
what a design offers it (:class:`DesignPlanner`: its unit, default target effect and plan function)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from cueshift.errors import ConfigError
from cueshift.power.cost import CostSettings
from cueshift.power.families import Targets
from cueshift.power.progress import SILENT, Progress
from cueshift.power.simulate import Simulations
from cueshift.study.config import Study


@dataclass(frozen=True)
class PlanRequest:
    """The options of one plan.

    Attributes
    ----------
    study
        The study being planned (any design with a planner).
    pilot
        A pilot study database of the same design (None: the documented defaults).
    targets
        FDR level, power, target effect (|Δ| for seed 000; a proportion's distance from 1/2 for
        pairwise; a CI half-width on ρ for probe) and interval level.
    faces
        Plan for this many faces (individuals, stimuli, images) instead of the study's.
    simulations, curve_simulations
        Simulated studies at the planned size, and per point of the power curve (0: none).
    seed
        Seed of the simulations (the pilot's intervals are a jackknife: nothing random).
    cost
        Image tokens, question tokens, answer tokens and throughput of the cost arithmetic.
    progress
        Where the plan reports its progress (:mod:`cueshift.power.progress`; default: nowhere;
        ``cueshift plan``: :func:`cueshift.plan.plan_progress`'s bars on stderr).
    """

    study: Study
    pilot: Path | None = None
    targets: Targets = field(default_factory=Targets)
    faces: int | None = None
    simulations: int = 200
    curve_simulations: int = 200
    seed: int = 0
    cost: CostSettings = field(default_factory=CostSettings)
    progress: Progress = field(default=SILENT, compare=False, repr=False)

    def __post_init__(self) -> None:
        t = self.targets
        if not 0.0 < t.q < 1.0:
            raise ConfigError(f"--alpha {t.q}: the FDR level must lie strictly between 0 and 1")
        if not t.q < t.power < 1.0:
            raise ConfigError(f"--power {t.power}: the target power must lie between the FDR level and 1")
        if not 0.0 < t.effect < 1.0:
            raise ConfigError(f"--target-effect {t.effect}: must lie strictly between 0 and 1")
        if self.faces is not None and self.faces < 2:
            raise ConfigError(f"--faces {self.faces}: plan for at least 2")
        if self.simulations < 0 or self.curve_simulations < 0:
            raise ConfigError("--simulations: must be 0 or more")
        if self.cost.throughput is not None and self.cost.throughput <= 0:
            raise ConfigError(f"--throughput {self.cost.throughput}: must be positive (prompts per second)")
        if self.cost.image_tokens < 0 or self.cost.answer_tokens < 1:
            raise ConfigError("--image-tokens must be 0 or more and --answer-tokens at least 1")

    def simulated(self, *, curve: bool = False) -> Simulations:
        """The simulations of the planned size (``--simulations``), or of each point of the power
        curve (``curve``: ``--curve-simulations``), from ``--seed``."""
        return Simulations(self.curve_simulations if curve else self.simulations, self.seed)


@dataclass(frozen=True)
class PlanResult:
    """A plan: tidy tables (each checked by its schema in ``schemas/plan.py``), the power curve
    figure, where the inputs came from and notes for the reader.

    Attributes
    ----------
    power
        ``plan_power``: one row per test × protocol variant (``protocol = 'planned'`` first).
    components
        ``plan_components``: the variance components and nuisance parameters used.
    cost
        ``plan_cost``: per model (and a total).
    curve
        ``plan_curve``: power against faces per effect size (empty when not computed).
    """

    design: str
    source: str
    power: pl.DataFrame
    components: pl.DataFrame
    cost: pl.DataFrame
    curve: pl.DataFrame
    figure: bytes | None = None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class DesignPlanner:
    """What a design's ``planner()`` gives ``cueshift plan``.

    Attributes
    ----------
    unit
        What the design's tests are counted in (``faces``, ``individuals``, ``trials``, ...): the
        ``unit`` column of the plan's tables.
    target_effect
        The effect a plan aims at when ``--target-effect`` is left out (on the design's own scale:
        an |SBS|, a score difference, a proportion's distance from 1/2, a CI half-width).
    plan
        The planner: a request in, the design's plan out (its tables are conformed and validated
        by :func:`cueshift.plan.plan_study`).
    curve
        Whether the planner draws a power curve (``--curve-simulations``; a design without one
        refuses the option in one line).
    alpha
        The level the design's analysis tests at, read from its study file: ``--alpha``'s default
        (``None``: the :class:`~cueshift.power.families.Targets` default, 0.05).

    Examples
    --------
    >>> planner = DesignPlanner("faces", 0.02, lambda request: NotImplemented)
    >>> planner.targets(None, power=0.8, q=0.05).effect, planner.targets(0.1, power=0.8, q=0.05).effect
    (0.02, 0.1)
    """

    unit: str
    target_effect: float
    plan: Callable[[PlanRequest], PlanResult]
    curve: bool = False
    alpha: Callable[[Study], float] | None = None

    def targets(self, effect: float | None, *, power: float, q: float, level: float = 0.95) -> Targets:
        """The plan's targets; ``effect`` None takes :attr:`target_effect`."""
        chosen = self.target_effect if effect is None else effect
        return Targets(q=q, power=power, effect=chosen, level=level)


__all__ = ["DesignPlanner", "PlanRequest", "PlanResult"]

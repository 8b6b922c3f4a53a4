r"""The plan of a probe study (seed 004): how many images give a target interval on the
model–human Spearman :math:`\rho` of each attribute, given the human raters' reliability.

Human means are measured with reliability :math:`r_{hh}` (split-half, Spearman–Brown), so a
model that tracks the true impression with :math:`\rho` shows
:math:`\rho_{obs} = \rho\sqrt{r_{hh}}` (Spearman 1904; model scores are deterministic). The
analysis's interval (:func:`cueshift.stats.spearman_with_ci`) is Fisher-z with the
Bonett–Wright variance :math:`(1 + \rho^2/2)/(n - 3)`, so its half-width at :math:`n` images is

.. math::

    h(n) = \tfrac12\Big[\tanh\big(z + c\,s\big) - \tanh\big(z - c\,s\big)\Big], \quad
    z = \operatorname{artanh}\rho_{obs}, \ s = \sqrt{\frac{1+\rho_{obs}^2/2}{n-3}},

and the images needed for a target half-width solve :math:`h(n) = h^*` (Bonett & Wright 2000).
Power of the test of :math:`\rho = 0` (BH over a model's attributes) uses the same normal
approximation. Without a pilot: :math:`\rho = 0.5` and :math:`r_{hh} = 0.8` (documented defaults);
with one, each attribute's measured :math:`\rho_{obs}` and split-half reliability.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import polars as pl
from numpy.typing import ArrayLike
from scipy import special

from cueshift._types import F64
from cueshift.designs.probe.section import ProbeStudy
from cueshift.power.analytic import bh_level_for_target, bh_threshold, solve_increasing
from cueshift.power.pilot import open_pilot
from cueshift.power.request import DesignPlanner, PlanRequest, PlanResult
from cueshift.power.study_cost import study_cost
from cueshift.stats import Resampling, bh_adjust, correlation_columns

DESIGN_NAME = "probe"
DEFAULT_RHO, DEFAULT_RELIABILITY = 0.5, 0.8


def spearman_half_width(rho: ArrayLike, n: ArrayLike, level: float = 0.95) -> F64:
    """Expected half-width of the Fisher-z (Bonett–Wright) interval of Spearman's ρ."""
    r, n_ = np.asarray(rho, dtype=np.float64), np.asarray(n, dtype=np.float64)
    c = special.ndtri((1 + level) / 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.sqrt((1 + r**2 / 2) / (n_ - 3))
        z = np.arctanh(np.clip(r, -0.999999, 0.999999))
        return np.asarray(np.where(n_ > 3, (np.tanh(z + c * s) - np.tanh(z - c * s)) / 2, np.inf))


def spearman_power(rho: ArrayLike, n: ArrayLike, alpha: ArrayLike) -> F64:
    """Power of the two-sided test of ρ = 0 (Fisher z, null variance 1/(n-3), Bonett–Wright under H1)."""
    r, n_ = np.asarray(rho, dtype=np.float64), np.asarray(n, dtype=np.float64)
    crit = special.ndtri(1 - np.asarray(alpha, dtype=np.float64) / 2) / np.sqrt(np.maximum(n_ - 3, 1e-9))
    s1 = np.sqrt((1 + r**2 / 2) / np.maximum(n_ - 3, 1e-9))
    z = np.abs(np.arctanh(np.clip(r, -0.999999, 0.999999)))
    return np.asarray(special.ndtr((z - crit) / s1) + special.ndtr((-z - crit) / s1))


def _images_for_half_width(rho: F64, half_width: float, level: float) -> F64:
    """Images for which the expected interval half-width of each ρ falls to ``half_width``."""

    def negative_width(n: F64) -> F64:
        return -spearman_half_width(rho, n, level)

    return solve_increasing(negative_width, -half_width, 4.0, 1e7)


def _min_rho(n: int, alpha: float, power: float) -> float:
    """The smallest |ρ| the test of ρ = 0 detects with ``power`` at ``alpha`` among ``n`` images."""
    return float(solve_increasing(lambda r: spearman_power(r, n, alpha), power, 0.0, 0.999))


def _pilot(request: PlanRequest, study: ProbeStudy) -> tuple[pl.DataFrame, str]:
    from cueshift.designs.probe.inputs import HUMANS_SQL, MEANS_SQL, model_scores, probe_inputs
    from cueshift.designs.probe.stats import model_human_similarity, reliability_table

    assert request.pilot is not None
    pilot = open_pilot(request.pilot, DESIGN_NAME)
    try:
        scores = model_scores(pilot.con, study.probe.score)
        humans, published = pilot.query(HUMANS_SQL), pilot.query(MEANS_SQL)
    finally:
        pilot.close()
    means = probe_inputs(scores, humans, published, None, study.probe).means
    sim = model_human_similarity(scores, means).select(
        "model_id", "attribute", pl.col("estimate").alias("rho")
    )
    if humans.height:
        rel = reliability_table(humans, Resampling(resamples=20, seed=request.seed)).select(
            "attribute", pl.col("estimate").alias("reliability")
        )
    else:
        rel = sim.select("attribute").unique().with_columns(pl.lit(DEFAULT_RELIABILITY).alias("reliability"))
    return sim.join(
        rel, on="attribute", how="left"
    ), f"pilot {request.pilot} ({scores['image_id'].n_unique()} images)"


def plan_probe(request: PlanRequest) -> PlanResult:
    """The plan of a probe study (module docstring)."""
    from cueshift.designs.registry import study_scenarios
    from cueshift.power.protocol import study_images

    study = request.study
    assert isinstance(study, ProbeStudy)
    face, _ = study_images(study)
    n = request.faces or face.height
    attributes = [s.scenario_id for s in study_scenarios(study)]
    if request.pilot is not None:
        table, source = _pilot(request, study)
    else:
        table = pl.DataFrame(
            [
                (m.model_id, a, DEFAULT_RHO * np.sqrt(DEFAULT_RELIABILITY), DEFAULT_RELIABILITY)
                for m in study.models
                for a in attributes
            ],
            schema=["model_id", "attribute", "rho", "reliability"],
            orient="row",
        )
        source = (
            f"defaults (no pilot): rho = {DEFAULT_RHO}, human reliability {DEFAULT_RELIABILITY} "
            "(observed rho = rho * sqrt(reliability))"
        )
    t = request.targets
    rng = np.random.default_rng(request.seed)
    parts = []
    for (model_id,), part in table.group_by("model_id", maintain_order=True):
        rho = part["rho"].fill_null(0.0).to_numpy().astype(np.float64)
        m = rho.size
        level = bh_threshold(partial(spearman_power, rho, n), m, t.q)
        m_true = max(int((np.abs(rho) >= t.effect).sum()), 1)
        level_mde = bh_level_for_target(m, m_true, t.power, t.q)
        needed = _images_for_half_width(rho, t.effect, t.level)
        frame = pl.DataFrame(
            {
                "protocol": "planned",
                "test": "similarity_ci",
                "family": model_id,
                "model_id": model_id,
                "target": part["attribute"].to_list(),
                "n_units": n,
                "n_tests": m,
                "n_true": m_true,
                "effect": rho,
                "alpha_level": level,
                "power": spearman_power(rho, n, level),
                "alpha_mde": level_mde,
                "mde": np.full(m, _min_rho(n, level_mde, t.power)),
                "ci_half_width": spearman_half_width(rho, n, t.level),
                "units_for_target": np.ceil(needed),
                "units_planned": n,
            }
        )
        if request.simulations:
            frame = frame.with_columns(_simulate(rho, n, request, rng))
        parts.append(frame)
    components = table.unpivot(
        index=["model_id", "attribute"], variable_name="component", value_name="estimate"
    ).select(
        "model_id",
        (pl.col("component") + ": " + pl.col("attribute")).alias("component"),
        "estimate",
        pl.lit(source).alias("source"),
    )
    cost = study_cost(
        request, faces=n, variation_images=0, scenarios=len(attributes), prompts_from=study_scenarios(study)
    )
    notes = ("target effect read as the target CI half-width on Spearman's rho",)
    return PlanResult(DESIGN_NAME, source, pl.concat(parts), components, cost, pl.DataFrame(), None, notes)


def _simulate(rho: F64, n: int, request: PlanRequest, rng: np.random.Generator) -> list[pl.Series]:
    """Bivariate normal scores with Spearman ρ (Pearson :math:`2\\sin(\\pi\\rho/6)`), the analysis's
    Spearman test and BH over the attributes."""
    r = 2 * np.sin(np.pi * rho / 6)
    hits = np.zeros(rho.size)
    for _ in range(request.simulations):
        x = rng.standard_normal((n, rho.size))
        y = r * x + np.sqrt(1 - r**2) * rng.standard_normal((n, rho.size))
        p = np.array([float(correlation_columns(x[:, j], y[:, j], "spearman")["p"]) for j in range(rho.size)])
        hits += np.nan_to_num(bh_adjust(p), nan=1.0) <= request.targets.q
    power = hits / request.simulations
    return [
        pl.Series("power_sim", power),
        pl.Series("power_sim_se", np.sqrt(power * (1 - power) / request.simulations)),
        pl.Series("n_sims", np.full(rho.size, request.simulations, dtype=np.int64)),
    ]


#: ``cueshift plan``'s view of the design: tests counted in images; the default target effect is
#: a CI half-width of 0.1 on Spearman's rho.
PLANNER = DesignPlanner(unit="images", target_effect=0.1, plan=plan_probe)

__all__ = ["DESIGN_NAME", "PLANNER", "plan_probe", "spearman_half_width", "spearman_power"]

r"""The plan of a paired study (seed 001): per model × scenario, the paper's Kruskal–Wallis of
original vs filtered scores and the paired Wilcoxon signed-rank test of each individual's
difference, with their minimum detectable effects, half-widths and individuals needed.

With :math:`n` individuals, score variance :math:`\sigma^2 = \sigma_U^2 + \overline{pq}/m` within a
condition (:math:`m` answers per score) and difference variance
:math:`\sigma_d^2 = \sigma_b^2 + 2\overline{pq}/m` (the individual's intercept cancels), an effect
:math:`\delta` gives the Kruskal–Wallis noncentrality
:math:`\lambda = \frac{3}{\pi}\frac{n\delta^2}{2\sigma^2}`
(:func:`~cueshift.power.analytic.kruskal_power`, two groups of :math:`n`) and the signed-rank power of
:math:`n` differences :math:`N(\delta, \sigma_d^2)` (:func:`~cueshift.power.analytic.wsrt_power`, normal
approximation as :func:`cueshift.stats.wilcoxon_signed_rank`). ``[paired] correction = "none"`` (the
paper's) tests each at :math:`\alpha`; ``"bh"`` at BH's level over the scenarios of a model.
Without a pilot the effect is the target and the variances come from the simulated judge's
identity intercept: :math:`\sigma_U \approx \tau\,\bar p(1-\bar p)` (delta method, :math:`\tau` =
``face_sd`` on the logit scale).
"""

from __future__ import annotations

import numpy as np
import polars as pl
from numpy.typing import ArrayLike

from cueshift._types import F64
from cueshift.designs.paired.section import PairedStudy
from cueshift.designs.registry import study_scenarios
from cueshift.power.analytic import (
    RANK_ARE,
    bh_level_for_target,
    bh_threshold,
    kruskal_power,
    normal_half_width,
    solve_increasing,
    wsrt_power,
)
from cueshift.power.pilot import open_pilot
from cueshift.power.request import DesignPlanner, PlanRequest, PlanResult
from cueshift.power.study_cost import study_cost
from cueshift.stats import bh_adjust, kruskal_columns, signed_rank_columns
from cueshift.study.config import Study

DESIGN_NAME = "paired"
#: Mean favorable probability and logit face sd of the simulated judge's defaults.
DEFAULT_P, DEFAULT_FACE_SD = 0.6, 0.3


def individuals(study: PairedStudy) -> int:
    """Individuals with an original and a filtered image (the synthetic set's count, or the manifest's)."""
    synthetic = study.paired.synthetic
    if synthetic is not None:
        return 2 * (6 * synthetic.cfd_per_cell + 3 * synthetic.faces_per_cell)
    from cueshift.designs.paired.workload import prepared_study
    from cueshift.images import load_image_set

    prepared = prepared_study(study)
    image_set = load_image_set(prepared.image_set, prepared.variations, progress=False)
    filtered = image_set.image.filter(pl.col("feature_key") == study.paired.filter_feature_key)
    return int(filtered["face_id"].n_unique())


def study_alpha(study: Study) -> float:
    """The level the paired analyses test at (``[paired] alpha``): ``cueshift plan --alpha``'s default."""
    assert isinstance(study, PairedStudy)
    return study.paired.alpha


def _pilot(request: PlanRequest, study: PairedStudy) -> tuple[pl.DataFrame, str]:
    """Per model × scenario: mean difference, within-condition and difference variances."""
    from cueshift.designs.paired.inputs import load_scores

    assert request.pilot is not None
    pilot = open_pilot(request.pilot, DESIGN_NAME)
    try:
        scores = load_scores(pilot.con, study.paired.filter_feature_key)
    finally:
        pilot.close()
    wide = scores.pivot(on="condition", index=["model_id", "scenario_id", "face_id"], values="s")
    stats = wide.group_by("model_id", "scenario_id", maintain_order=True).agg(
        (pl.col("filtered") - pl.col("original")).mean().alias("effect"),
        (pl.col("filtered") - pl.col("original")).var().alias("var_diff"),
        ((pl.col("filtered").var() + pl.col("original").var()) / 2).alias("var_within"),
    )
    return stats, f"pilot {request.pilot} ({wide['face_id'].n_unique()} individuals)"


def _defaults(study: PairedStudy, scenarios: list[str], request: PlanRequest) -> tuple[pl.DataFrame, str]:
    prompts = len(study.prompt.orderings) * len(study.seeds)
    pq = DEFAULT_P * (1 - DEFAULT_P)
    rows = []
    for model in study.models:
        face_sd = float(model.settings.get("face_sd", DEFAULT_FACE_SD))
        sigma_u2 = (face_sd * pq) ** 2
        for s in scenarios:
            rows.append(
                (model.model_id, s, request.targets.effect, 2 * pq / prompts, sigma_u2 + pq / prompts)
            )
    frame = pl.DataFrame(
        rows, schema=["model_id", "scenario_id", "effect", "var_diff", "var_within"], orient="row"
    )
    return frame, "simulated-judge defaults (no pilot): effect = target, identity sd from face_sd"


def paired_power(test: str, effect: ArrayLike, sd: ArrayLike, n: ArrayLike, alpha: ArrayLike) -> F64:
    r"""Power of ``paired_wilcoxon`` (``sd``: of the differences) or ``paired_kruskal`` (``sd``:
    :math:`\sigma\sqrt2`, so that :math:`\lambda = \frac{3}{\pi} n\delta^2/sd^2`)."""
    if test == "paired_wilcoxon":
        return wsrt_power(effect, sd, n, alpha, exact=False)
    lam = RANK_ARE * np.asarray(n) * np.asarray(effect) ** 2 / np.asarray(sd) ** 2
    return kruskal_power(lam, 2, alpha)


def _test_frame(
    test: str,
    model_id: str,
    scenarios: list[str],
    eff: F64,
    sd: F64,
    n: int,
    request: PlanRequest,
    alpha: float | None,
) -> pl.DataFrame:
    """One model's rows of one test; ``alpha`` None: BH over the scenarios."""
    t, m = request.targets, eff.size
    level = bh_threshold(lambda a: paired_power(test, eff, sd, n, a), m, t.q) if alpha is None else alpha
    level_mde = bh_level_for_target(m, m, t.power, t.q) if alpha is None else alpha
    mde = solve_increasing(lambda d: paired_power(test, d, sd, n, level_mde), t.power, 0.0, 1.0)
    needed = solve_increasing(lambda k: paired_power(test, t.effect, sd, k, level_mde), t.power, 3.0, 1e6)
    return pl.DataFrame(
        {
            "protocol": "planned",
            "test": test,
            "family": model_id,
            "model_id": model_id,
            "target": scenarios,
            "n_units": n,
            "n_tests": m,
            "n_true": m,
            "effect": eff,
            "sd_unit": sd,
            "alpha_level": level,
            "power": paired_power(test, eff, sd, n, level),
            "alpha_mde": level_mde,
            "mde": mde,
            "ci_half_width": normal_half_width(sd, n, t.level),
            "units_for_target": np.ceil(needed),
            "units_planned": n,
        }
    )


def plan_paired(request: PlanRequest) -> PlanResult:
    """The plan of a paired study (module docstring)."""
    study = request.study
    assert isinstance(study, PairedStudy)
    n = request.faces or individuals(study)
    scenarios = [s.scenario_id for s in study_scenarios(study)]
    stats, source = _pilot(request, study) if request.pilot else _defaults(study, scenarios, request)
    bh = study.paired.correction == "bh"
    alpha = None if bh else request.targets.q  # --alpha (cueshift plan's default: [paired] alpha)
    rng = np.random.default_rng(request.seed)
    parts = []
    for (model_id,), part in stats.group_by("model_id", maintain_order=True):
        eff = part["effect"].to_numpy().astype(np.float64)
        sd_d = np.sqrt(part["var_diff"].fill_null(0.0).to_numpy())
        sd_w = np.sqrt(part["var_within"].fill_null(0.0).to_numpy())
        labels = part["scenario_id"].to_list()
        for test, sd in (("paired_wilcoxon", sd_d), ("paired_kruskal", sd_w * np.sqrt(2))):
            frame = _test_frame(test, str(model_id), labels, eff, sd, n, request, alpha)
            if request.simulations:
                level = float(frame["alpha_level"][0])
                frame = frame.with_columns(_simulate(test, eff, sd_d, sd_w, n, level, bh, request, rng))
            parts.append(frame)
    power = pl.concat(parts, how="diagonal_relaxed")
    components = stats.unpivot(
        index=["model_id", "scenario_id"], variable_name="component", value_name="estimate"
    )
    components = components.select(
        "model_id",
        (pl.col("component") + ": " + pl.col("scenario_id")).alias("component"),
        "estimate",
        pl.lit(source).alias("source"),
    )
    cost = study_cost(
        request, faces=n, variation_images=n, scenarios=len(scenarios), prompts_from=study_scenarios(study)
    )
    return PlanResult(DESIGN_NAME, source, power, components, cost, pl.DataFrame(), None, ())


def _simulate(
    test: str,
    eff: np.ndarray,
    sd_d: np.ndarray,
    sd_w: np.ndarray,
    n: int,
    level: float,
    bh: bool,
    request: PlanRequest,
    rng: np.random.Generator,
) -> list[pl.Series]:
    """Simulated power of one model's scenarios: normal scores, the study's rank kernels, BH or α."""
    hits = np.zeros(eff.size)
    alpha = request.targets.q if bh else level
    for _ in range(request.simulations):
        if test == "paired_wilcoxon":
            d = eff + sd_d * rng.standard_normal((n, eff.size))
            p = signed_rank_columns(d, method="asymptotic").p_value
        else:
            x = np.vstack(
                [sd_w * rng.standard_normal((n, eff.size)), eff + sd_w * rng.standard_normal((n, eff.size))]
            )
            p = kruskal_columns(x, np.repeat(np.arange(2), n), 2).p_value
        p = np.nan_to_num(bh_adjust(p) if bh else p, nan=1.0)
        hits += p <= alpha
    power = hits / request.simulations
    return [
        pl.Series("power_sim", power),
        pl.Series("power_sim_se", np.sqrt(power * (1 - power) / request.simulations)),
        pl.Series("n_sims", np.full(eff.size, request.simulations, dtype=np.int64)),
    ]


#: ``cueshift plan``'s view of the design: tests counted in individuals; the default target effect is
#: a 0.05 score difference between original and filtered.
PLANNER = DesignPlanner(unit="individuals", target_effect=0.05, plan=plan_paired, alpha=study_alpha)

__all__ = ["DESIGN_NAME", "PLANNER", "individuals", "paired_power", "plan_paired", "study_alpha"]
